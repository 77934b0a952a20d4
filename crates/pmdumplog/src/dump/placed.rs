//! The values of an archive of one compressed volume dumped while the volume is
//! still being decoded, to a standard output that can be written at a place (a
//! regular file, or the null device: [`cli_common::placed`]). The report's first
//! lines (the label, with the archive's end) are known only once the whole volume
//! is decoded; room is left for them, everything after them goes straight out,
//! and the room is filled last. Nothing is held back, where [`super::spool`] (for
//! a pipe) holds the values formatted before the end is known.
//!
//! The room is what the label reads as were the archive to end where it starts:
//! an end's time is printed at the same width. Where the head made at the end
//! does not fit it exactly (or says something on a standard error that writes into
//! the same file, or the volume fails to decode part way, or the head ends the
//! report), what was written is taken back and the report made again as the
//! other ways make it.

use super::*;
use archive_format::text::RawBytes;
use cli_common::placed::Placed;

/// Dumps `a` (opened to read its volume while it decodes) to `out`, which ends
/// in `place`: the exit status, or `None`, with what was written taken back, where
/// the report must be made again the usual way.
pub(super) fn dump(
    a: &Archive,
    o: &Opts,
    name: &str,
    wanted: &[PmId],
    mut place: Placed,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Option<i32>> {
    let Some((clock, wstart)) = super::spool::start_unended(a, o) else {
        return Ok(None);
    };
    let mut room = Vec::new();
    let start = Some(a.label().start);
    if head_ended(a, o, start, &mut RawBytes(&mut room), &mut io::sink())?.is_err() {
        return Ok(None);
    }
    std::thread::scope(|s| {
        let head = s.spawn(|| {
            let (mut text, mut said) = (Vec::new(), Vec::new());
            let made = head_start(a, o, name, &mut RawBytes(&mut text), &mut said);
            (made, text, said)
        });
        out.write_all(&room)?;
        let mut raw = RawBytes(&mut *out);
        head_sections(a, o, &clock, &mut raw)?;
        // the fetch error that ends a dump is written after the values
        let mut late = Vec::new();
        let threads = cli_common::parallel::threads();
        let dumped = dump_values_on(
            threads, a, o, wanted, wstart, None, &clock, &mut raw, &mut late,
        );
        let (made, text, said) = head.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        // (what the head says, on a standard error that writes into the same
        // file, would land after the values instead of before them)
        let fits = text.len() == room.len() && (said.is_empty() || !place.shares_err());
        if !a.decoded_whole() || !fits {
            place.rewind(out)?;
            return Ok(None);
        }
        if let Err(code) = made? {
            place.rewind(out)?;
            err.write_all(&said)?;
            out.write_all(&text)?;
            return Ok(Some(code));
        }
        place.fill(out, &text)?;
        err.write_all(&said)?;
        let code = dumped?;
        err.write_all(&late)?;
        Ok(Some(code))
    })
}

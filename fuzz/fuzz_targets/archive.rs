#![no_main]
//! A whole archive from one input: the first two big-endian words are the
//! lengths of the .meta and .index files, the rest after them is the data
//! volume. Opened, read forward and backward (also through a window with the
//! value sets read in place), streamed (`archive_format::stream`),
//! and replayed (interpolated at a step taken from the input) for every metric:
//! the library must answer with an error or a result, never panic, and never
//! loop without end.
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::Archive;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn dir() -> &'static std::path::Path {
    static D: OnceLock<std::path::PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("fuzz-archive-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&d);
        d
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let word =
        |o: usize| u32::from_be_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]]) as usize;
    let rest = &data[8..];
    let m = word(0).min(rest.len());
    let i = word(4).min(rest.len() - m);
    let base = dir().join("a");
    let put =
        |suffix: &str, bytes: &[u8]| std::fs::write(format!("{}.{suffix}", base.display()), bytes);
    if put("meta", &rest[..m]).is_err()
        || put("index", &rest[m..m + i]).is_err()
        || put("0", &rest[m + i..]).is_err()
    {
        return;
    }
    let Ok(a) = Archive::open(base.to_string_lossy()) else {
        return;
    };
    for r in a.records().take(10_000) {
        if r.is_err() {
            break;
        }
    }
    let (mut w, mut pos) = (archive_format::ReadWindow::default(), a.start());
    for _ in 0..10_000 {
        let Ok(Some((_, rec, next))) = a.read_sets_forward_in(pos, &mut w) else {
            break;
        };
        for s in &rec.sets {
            s.insts().zip(s.checked_values()).for_each(|x| {
                std::hint::black_box(x);
            });
        }
        pos = next;
    }
    if let Some(mut s) = archive_format::stream::RecordStream::open(&a) {
        for _ in 0..10_000 {
            match s.next_record() {
                Ok(Some(_)) => {}
                _ => break,
            }
        }
        let _ = s.faithful(a.label().start);
    }
    let pmids: Vec<_> = a.metadata().descs().iter().map(|d| d.pmid).collect();
    let mut r = Replay::new(&a);
    let step = 1 + (data.len() as i64 % 5_000);
    r.set_mode(
        Mode::Interp,
        Some(a.label().start),
        Delta::from_millis(step),
    );
    for _ in 0..200 {
        if r.fetch(&pmids).is_err() {
            break;
        }
    }
    r.set_mode(Mode::Back, Some(a.label().start), Delta::from_millis(0));
    for _ in 0..200 {
        if r.fetch(&pmids).is_err() {
            break;
        }
    }
});

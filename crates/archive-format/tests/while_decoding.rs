//! Compressed volumes read while they are being decoded
//! (`OpenOptions::while_decoding`): the records are those of the plain archive,
//! forward and backward; a volume whose decoding fails part way is found out by
//! `Archive::decoded_whole`, and reading it never panics.

mod common;

use archive_format::archive::{Archive, OpenOptions};
use archive_format::codec::result::OwnedValueSet;
use archive_format::logfetch::{Direction, LogCursor};
use archive_format::types::{vtype, PmId, Timestamp};
use common::Xz;
use std::path::Path;

/// An archive of `count` records in volumes of `per_volume`, each volume then
/// xz-compressed (the plain volumes removed), in one block or in blocks of
/// `block` bytes: its base name, and the records' times and values as the plain
/// archive gives them.
fn archive(
    dir: &Path,
    count: u32,
    per_volume: u32,
    block: Xz,
) -> (String, Vec<(Timestamp, String)>) {
    let base = dir.join("a");
    common::write_one_metric(
        &base,
        PmId::new(251, 0, 1),
        vtype::U64,
        "t.a",
        count,
        per_volume,
        // values that do not compress to nothing
        |p, k| OwnedValueSet::insitu(p, vec![(-1, k.wrapping_mul(2_654_435_761))]),
    );
    let name = base.to_string_lossy().into_owned();
    let want = forward(&Archive::open(&name).expect("plain"));
    common::xz_volumes_in(&name, block);
    (name, want)
}

fn forward(a: &Archive) -> Vec<(Timestamp, String)> {
    let mut c = LogCursor::new(a);
    c.set_mode(Direction::Forward, a.label().start);
    let mut got = Vec::new();
    while let Some(r) = c.fetch().expect("fetch") {
        got.push((r.stamp, format!("{:?}", r.vsets)));
    }
    got
}

fn open_while_decoding(name: &str) -> archive_format::Result<Archive> {
    let opts = OpenOptions {
        while_decoding: true,
        ..OpenOptions::default()
    };
    Archive::open_with(name, opts)
}

#[test]
fn volumes_read_while_decoding_give_the_plain_records() {
    // blocks decoded on two threads beside the reader's
    archive_format::cores::set_default(3);
    let dir = tempfile::tempdir().expect("tempdir");
    // single-block xz volumes (each decodes on one thread, and is read as it
    // does), and volumes of many blocks (decoded on every core, and read as
    // they are)
    for (count, per_volume, block) in [
        (20_000, 20_000, Xz::OneBlock),
        (9_000, 3_000, Xz::OneBlock),
        (20_000, 20_000, Xz::Blocks(64 * 1024)),
        (20_000, 20_000, Xz::BlocksUnsized(64 * 1024)),
    ] {
        let (name, want) = archive(dir.path(), count, per_volume, block);
        assert_eq!(want.len(), count as usize);
        let a = open_while_decoding(&name).expect("open");
        assert!(a.decoding());
        assert!(!Archive::open(&name).expect("open").decoding());
        assert_eq!(
            forward(&a),
            want,
            "{count} in volumes of {per_volume}, {block:?}"
        );
        assert!(a.decoded_whole());
        // backward, and the end, read the volumes whole
        let a = open_while_decoding(&name).expect("open");
        assert_eq!(a.end_time().expect("end"), want[want.len() - 1].0);
        let back: Vec<Timestamp> = a
            .records_rev()
            .map(|r| r.expect("record").1.stamp)
            .collect();
        let mut times: Vec<Timestamp> = want.iter().map(|w| w.0).collect();
        times.reverse();
        assert_eq!(back, times);
        // an archive dropped before its volumes are read leaves nothing waiting
        drop(open_while_decoding(&name).expect("open"));
        for f in std::fs::read_dir(dir.path()).expect("dir") {
            std::fs::remove_file(f.expect("entry").path()).expect("remove");
        }
    }
}

#[test]
fn the_threads_a_decoding_is_given_read_the_same_records() {
    archive_format::cores::set_default(3);
    let dir = tempfile::tempdir().expect("tempdir");
    for block in [Xz::Blocks(64 * 1024), Xz::BlocksUnsized(64 * 1024)] {
        let (name, want) = archive(dir.path(), 20_000, 20_000, block);
        // one thread: liblzma's decoder; two: the blocks by the index
        for threads in [1, 2] {
            let opts = OpenOptions {
                while_decoding: true,
                decoding_threads: Some(threads),
                ..OpenOptions::default()
            };
            let a = Archive::open_with(&name, opts).expect("open");
            assert!(a.decoding());
            assert_eq!(forward(&a), want, "{block:?} on {threads} threads");
            assert!(a.decoded_whole());
        }
        for f in std::fs::read_dir(dir.path()).expect("dir") {
            std::fs::remove_file(f.expect("entry").path()).expect("remove");
        }
    }
}

#[test]
fn a_volume_that_fails_to_decode_part_way_is_found_out() {
    archive_format::cores::set_default(3);
    // in one block, and in many decoded on every core
    for block in [
        Xz::OneBlock,
        Xz::Blocks(64 * 1024),
        Xz::BlocksUnsized(64 * 1024),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (name, want) = archive(dir.path(), 20_000, 20_000, block);
        let vol = format!("{name}.0.xz");
        let mut z = std::fs::read(&vol).expect("volume");
        // the compressed data damaged well after the label (the index, which
        // declares the size, is left as it was)
        let at = z.len() * 3 / 5;
        for b in &mut z[at..at + 64] {
            *b ^= 0x5a;
        }
        std::fs::write(&vol, &z).expect("write");
        let a = open_while_decoding(&name).expect("the label decodes");
        assert!(a.decoding());
        let mut c = LogCursor::new(&a);
        c.set_mode(Direction::Forward, a.label().start);
        let mut read = 0;
        while let Ok(Some(_)) = c.fetch() {
            read += 1;
        }
        assert!(
            read < want.len(),
            "{read} records of a damaged volume, {block:?}"
        );
        assert!(!a.decoded_whole());
        // read as libpcp reads it, the volume cannot be used at all
        let plain = Archive::open(&name);
        assert!(plain.is_err() || forward(&plain.expect("open")).is_empty());
    }
}

#[test]
fn through_the_profiles_copies_the_metadata_is_decoded_once_and_the_volumes_as_read() {
    use archive_format::archive::{meta_profile, meta_profile_with};
    use archive_format::compress::{compress, Compression};
    use archive_format::volume::Decompressed;
    let dir = tempfile::tempdir().expect("tempdir");
    let (name, want) = archive(dir.path(), 9_000, 3_000, Xz::OneBlock);
    let meta = format!("{name}.meta");
    let z = compress(Compression::Xz, &std::fs::read(&meta).expect("meta")).expect("xz");
    std::fs::write(format!("{meta}.xz"), z).expect("write");
    std::fs::remove_file(&meta).expect("remove the plain .meta");
    let copies = Decompressed::new();
    let p = meta_profile_with(&name, Some(&copies)).expect("profile");
    assert_eq!(p, meta_profile(&name).expect("profile"));
    assert_eq!(format!("{copies:?}"), "Decompressed { files: 1 }");
    let opts = OpenOptions {
        while_decoding: true,
        decompressed: Some(copies.clone()),
        ..OpenOptions::default()
    };
    let a = Archive::open_with(&name, opts).expect("open");
    assert!(a.decoding(), "the volumes are read as they decode");
    assert_eq!(forward(&a), want);
    assert!(a.decoded_whole());
    // the .meta's copy, and none of a volume
    assert_eq!(format!("{copies:?}"), "Decompressed { files: 1 }");
}

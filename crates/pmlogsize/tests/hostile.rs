//! pmlogsize on hostile files: what it reports costs time and memory in
//! proportion to the file, whatever counts the file claims.

/// pmlogsize's report of `bytes` with every detail asked for (`-d -r -v -x 50`,
/// as the fuzz target asks).
fn report_of(bytes: &[u8]) -> pmlogsize::Report {
    let want = pmlogsize::Want {
        detail: true,
        replication: true,
        verbose: 1,
        threshold: Some(50),
    };
    pmlogsize::report_of(bytes, &want).expect("a metadata report")
}

/// A metadata file (found by fuzzing) with a descriptor whose name claims a
/// length of 1 GB, in a file of 621 bytes.
#[test]
fn a_name_length_past_the_record_costs_nothing() {
    let bytes = include_bytes!("data/huge-name-length.meta");
    let report = report_of(bytes);
    // the report says no more than the file holds (a name claiming 1 GB is not
    // padded to that length)
    assert!(
        report.out.len() < 64 * bytes.len(),
        "{} bytes",
        report.out.len()
    );
    assert!(report.out.contains("PMID: 245.0.2 "), "{}", report.out);
}

/// An instance domain record claiming 2^31 - 1 instances in a few bytes: the
/// count is reported, and only the instances the record holds are read.
#[test]
fn an_instance_count_past_the_record_costs_nothing() {
    let mut file = include_bytes!("data/huge-name-length.meta").to_vec();
    let rec = first_v2_indom(&file).expect("an instance domain record");
    // (length, type, a 2-word time stamp, the domain, then the count)
    file[rec + 20..rec + 24].copy_from_slice(&i32::MAX.to_be_bytes());
    let report = report_of(&file);
    let said = format!("{} instances", i32::MAX);
    assert!(report.out.contains(&said), "{}", report.out);
}

/// Where the first version 2 instance domain record (type 2) starts, walking
/// the records from the label's end.
fn first_v2_indom(file: &[u8]) -> Option<usize> {
    let word = |at: usize| Some(u32::from_be_bytes(file.get(at..at + 4)?.try_into().ok()?));
    let mut at = word(0)? as usize;
    loop {
        let len = word(at)? as usize;
        if word(at + 4)? == 2 {
            return Some(at);
        }
        if len < 12 {
            return None;
        }
        at += len;
    }
}

/// A metadata record whose length is the smallest `int` (found by fuzzing): the
/// read fails as PCP's does, where the length less the header wraps, instead
/// of overflowing.
#[test]
fn the_smallest_record_length_is_a_failed_read() {
    let report = report_of(include_bytes!("data/smallest-length.meta"));
    let err = report.err.expect("a failed read");
    assert!(err.ends_with(" not 2147483636"), "{err}");
}

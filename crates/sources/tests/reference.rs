//! The local source against PCP's own Linux agent, through the reference pmcd: the
//! same descriptors (`pminfo -d -m`), the same instance names, and the same values for
//! metrics that do not move (`pminfo -f`). Skips with a message where pmcd is not
//! running, and fails instead when REQUIRE_REFERENCE is set (CI starts pmcd).

use archive_format::types::{sem, vtype};
use sources::local::Local;
use sources::MetricSource;
use std::collections::BTreeMap;
use std::process::Command;

fn pminfo(args: &[&str]) -> Option<String> {
    let out = Command::new("pminfo").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn reference_up() -> bool {
    let up = pminfo(&["pmcd.version"]).is_some();
    if !up {
        test_support::skip("the reference pmcd does not answer (scripts/start-pmcd.sh)");
    }
    up
}

/// `name -> "PMID: ... / Data Type ... / Semantics ..."` from `pminfo -d -m`.
fn reference_descs(names: &[&str]) -> BTreeMap<String, String> {
    let mut args = vec!["-d", "-m"];
    args.extend_from_slice(names);
    let text = pminfo(&args).unwrap_or_default();
    let mut out = BTreeMap::new();
    for block in text.split("\n\n") {
        let block = block.trim();
        let Some((first, rest)) = block.split_once('\n') else {
            continue;
        };
        let Some((name, pmid)) = first.split_once(' ') else {
            continue;
        };
        let rest: Vec<&str> = rest.lines().map(str::trim).collect();
        out.insert(name.to_string(), format!("{pmid} | {}", rest.join(" | ")));
    }
    out
}

fn ours(m: &sources::Metric) -> String {
    let d = &m.desc;
    let indom = if d.indom.is_null() {
        "PM_INDOM_NULL 0xffffffff".to_string()
    } else {
        format!("{} 0x{:x}", d.indom, d.indom.0)
    };
    let units = d.units.to_string();
    format!(
        "PMID: {} | Data Type: {}  InDom: {indom} | Semantics: {}  Units: {}",
        d.pmid,
        vtype::long_name(d.vtype).unwrap_or("?"),
        sem::name(d.sem).unwrap_or("?"),
        if units.is_empty() { "none" } else { &units }
    )
}

#[test]
fn descriptors_match_the_linux_agent() {
    if !reference_up() {
        return;
    }
    let local = Local::default();
    let names: Vec<&str> = local.metrics().iter().map(|m| m.name).collect();
    let theirs = reference_descs(&names);
    let mut diffs = Vec::new();
    for m in local.metrics() {
        match theirs.get(m.name) {
            Some(t) if *t == ours(m) => {}
            Some(t) => diffs.push(format!("{}: ours {} / theirs {t}", m.name, ours(m))),
            None => diffs.push(format!("{}: not known to the reference", m.name)),
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// `(instance name, value text)` per metric from `pminfo -f`.
fn reference_values(names: &[&str]) -> BTreeMap<String, Vec<(String, String)>> {
    let mut args = vec!["-f"];
    args.extend_from_slice(names);
    let text = pminfo(&args).unwrap_or_default();
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut cur = String::new();
    for l in text.lines() {
        if l.is_empty() {
            continue;
        }
        if !l.starts_with(' ') {
            cur = l.trim().to_string();
            continue;
        }
        let l = l.trim();
        if let Some(rest) = l.strip_prefix("inst [") {
            let name = rest.split('"').nth(1).unwrap_or("").to_string();
            let value = rest
                .rsplit_once("value ")
                .map(|x| x.1)
                .unwrap_or("")
                .to_string();
            out.entry(cur.clone()).or_default().push((name, value));
        } else if let Some(v) = l.strip_prefix("value ") {
            out.entry(cur.clone())
                .or_default()
                .push((String::new(), v.to_string()));
        }
    }
    out
}

#[test]
fn instances_and_steady_values_match_the_linux_agent() {
    if !reference_up() {
        return;
    }
    let mut local = Local::default();
    let indomed = [
        "kernel.all.load",
        "kernel.percpu.cpu.user",
        "disk.dev.read",
        "network.interface.in.bytes",
        "filesys.free",
    ];
    let steady = [
        "hinv.ncpu",
        "hinv.ndisk",
        "mem.physmem",
        "kernel.uname.release",
        "kernel.uname.sysname",
        "kernel.uname.machine",
        "filesys.capacity",
        "filesys.maxfiles",
        "filesys.blocksize",
        "filesys.mountdir",
        "mem.util.swapTotal",
        "mem.util.vmallocTotal",
        "mem.util.commitLimit",
        "mem.util.hugepagesTotal",
        "mem.util.hugepagesTotalBytes",
        "disk.dev.scheduler",
        "disk.dev.capacity",
    ];
    let mut all: Vec<&str> = indomed.to_vec();
    all.extend(steady);
    let theirs = reference_values(&all);
    for name in indomed {
        let m = local.lookup(name).expect("ours")[0].clone();
        let mut want: Vec<String> = theirs
            .get(name)
            .map(|v| v.iter().map(|x| x.0.clone()).collect())
            .unwrap_or_default();
        let mut got: Vec<String> = local
            .instances(m.desc.indom)
            .into_iter()
            .map(|(_, n)| n)
            .collect();
        want.sort();
        got.sort();
        // interfaces can come and go between the two reads; everything else must match
        if name.starts_with("network") {
            assert!(
                want.iter().all(|w| got.contains(w)),
                "{name}: ours {got:?} theirs {want:?}"
            );
        } else {
            assert_eq!(got, want, "{name}");
        }
    }
    let pmids: Vec<_> = steady
        .iter()
        .map(|n| local.lookup(n).expect("ours")[0].desc.pmid)
        .collect();
    let (_, sets) = local.fetch(&pmids).expect("fetch");
    for (name, set) in steady.iter().zip(&sets) {
        let m = local.lookup(name).expect("ours")[0].clone();
        let text = archive_format::format::format_value(
            m.desc.vtype,
            set.valfmt,
            &set.values[0].1.as_value(),
        );
        let want = &theirs.get(*name).expect("reference value")[0].1;
        assert_eq!(&text, want, "{name}");
    }
}

/// Moving values taken at the same moment: the reference's reading of each counter
/// lies between two readings of ours taken just before and just after it.
#[test]
fn counters_match_the_linux_agent_at_the_same_moment() {
    if !reference_up() {
        return;
    }
    let mut local = Local::default();
    let counters = [
        "kernel.all.intr",
        "kernel.all.pswitch",
        "kernel.all.cpu.user",
        "kernel.all.cpu.sys",
        "kernel.percpu.cpu.idle",
        "kernel.all.cpu.vuser",
        "kernel.all.cpu.intr",
        "kernel.all.cpu.wait.total",
        "kernel.all.cpu.irq.soft",
        "kernel.all.cpu.guest",
        "kernel.percpu.cpu.vnice",
        "kernel.percpu.cpu.steal",
        "kernel.percpu.cpu.irq.hard",
        "disk.dev.read",
        "disk.dev.write_bytes",
        "disk.dev.total",
        "disk.dev.blktotal",
        "disk.dev.total_bytes",
        "disk.dev.read_merge",
        "disk.dev.read_rawactive",
        "disk.dev.total_rawactive",
        "disk.dev.aveq",
        "disk.dev.discard",
        "disk.dev.flush",
        "disk.all.total_bytes",
        "disk.all.write_rawactive",
        "disk.all.aveq",
        "network.interface.in.bytes",
        "swap.pagesin",
    ];
    let metrics: Vec<sources::Metric> = counters
        .iter()
        .map(|n| local.lookup(n).expect("ours")[0].clone())
        .collect();
    let pmids: Vec<_> = metrics.iter().map(|m| m.desc.pmid).collect();
    let read = |local: &mut Local| -> Vec<BTreeMap<String, u64>> {
        let (_, sets) = local.fetch(&pmids).expect("fetch");
        let mut out = Vec::new();
        for (m, set) in metrics.iter().zip(&sets) {
            let names: BTreeMap<i32, String> = if m.desc.indom.is_null() {
                BTreeMap::new()
            } else {
                local.instances(m.desc.indom).into_iter().collect()
            };
            let mut vals = BTreeMap::new();
            for (inst, v) in &set.values {
                let text =
                    archive_format::format::format_value(m.desc.vtype, set.valfmt, &v.as_value());
                let name = names.get(inst).cloned().unwrap_or_default();
                vals.insert(name, text.trim().parse::<u64>().expect("integer counter"));
            }
            out.push(vals);
        }
        out
    };
    let before = read(&mut local);
    let theirs = reference_values(&counters);
    let after = read(&mut local);
    let mut compared = 0;
    for (k, name) in counters.iter().enumerate() {
        for (inst, value) in theirs.get(*name).map(Vec::as_slice).unwrap_or_default() {
            let (Some(lo), Some(hi)) = (before[k].get(inst), after[k].get(inst)) else {
                continue; // an instance that came or went between the reads
            };
            let v: u64 = value.parse().expect("reference integer");
            assert!(
                *lo <= v && v <= *hi,
                "{name}[{inst}]: reference {v} not within ours {lo}..={hi}"
            );
            compared += 1;
        }
    }
    assert!(
        compared >= counters.len(),
        "only {compared} values compared"
    );
}

/// The help texts (one-line and full) of every metric of the built-in table and
/// of its instance domains are the Linux agent's, as pmcd serves them, so that
/// archives of both merge without "help text changed!".
#[test]
fn help_texts_match_the_linux_agent() {
    use archive_format::codec::meta::text_type::{HELP, INDOM, ONELINE, PMID};
    use sources::Source;
    if !reference_up() {
        return;
    }
    let mut pmcd = sources::pmcd::Pmcd::connect("local:").expect("pmcd answers");
    let mut local = Local::default();
    let metrics: Vec<_> = MetricSource::metrics(&local).to_vec();
    let mut indoms = std::collections::BTreeSet::new();
    let mut compared = 0;
    for m in &metrics {
        let id = m.desc.pmid.0;
        for kind in [ONELINE, HELP] {
            let theirs = pmcd.text(id, PMID | kind);
            let ours = Source::text(&mut local, id, PMID | kind);
            assert_eq!(ours, theirs, "{} ({kind})", m.name);
            compared += 1;
        }
        if !m.desc.indom.is_null() {
            indoms.insert(m.desc.indom.0);
        }
    }
    for indom in indoms {
        for kind in [ONELINE, HELP] {
            let theirs = pmcd.text(indom, INDOM | kind);
            let ours = Source::text(&mut local, indom, INDOM | kind);
            assert_eq!(ours, theirs, "indom {indom:#x} ({kind})");
        }
    }
    assert!(compared > 300);
}

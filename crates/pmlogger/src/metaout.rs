//! Metadata output: descriptors, instance domains, labels and help text written
//! before the first value that needs them, as PCP's pmlogger writes them.

use super::*;

/// PM_TEXT_* bits of help-text records.
pub(crate) const TEXT_ONELINE: u32 = 1;
pub(crate) const TEXT_HELP: u32 = 2;
pub(crate) const TEXT_PMID: u32 = 4;
pub(crate) const TEXT_INDOM: u32 = 8;

/// The label sets a newly described metric brings (`seen` holds what the archive
/// has already: label kinds by type and identifier), each kind once per archive,
/// in the reference pmlogger's order: context, domain, instance domain, cluster,
/// item, instances.
pub(crate) fn write_labels(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    stamp: Timestamp,
    desc: &Desc,
    seen: &mut HashSet<(u32, u32)>,
) -> archive_format::Result<()> {
    let pmid = desc.pmid.0;
    let mut kinds = vec![(label::CONTEXT, u32::MAX), (label::DOMAIN, pmid >> 22)];
    if !desc.indom.is_null() {
        kinds.push((label::INDOM, desc.indom.0));
    }
    kinds.push((label::CLUSTER, pmid & !0x3ff));
    kinds.push((label::ITEM, pmid));
    if !desc.indom.is_null() {
        kinds.push((label::INSTANCES, desc.indom.0));
    }
    for (ltype, ident) in kinds {
        if !seen.insert((ltype as u32, ident)) {
            continue;
        }
        let sets = source.labels(ltype, ident);
        if !sets.is_empty() {
            w.put_labels(stamp, ltype as u32, ident, sets)?;
        }
    }
    Ok(())
}

/// Help text of a newly described metric and its instance domain, in the reference
/// pmlogger's order: one-line texts, then full texts; each only where the source
/// has it, an instance domain's with the first metric that uses it.
pub(crate) fn write_help(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    desc: &Desc,
    seen: &mut HashSet<(u32, u32)>,
) -> archive_format::Result<()> {
    let pmid = desc.pmid.0;
    let indom = desc.indom;
    let with_indom = !indom.is_null() && seen.insert((TEXT_INDOM << 8, indom.0));
    let mut texts = vec![(TEXT_ONELINE | TEXT_PMID, pmid)];
    if with_indom {
        texts.push((TEXT_ONELINE | TEXT_INDOM, indom.0));
    }
    texts.push((TEXT_HELP | TEXT_PMID, pmid));
    if with_indom {
        texts.push((TEXT_HELP | TEXT_INDOM, indom.0));
    }
    for (ttype, ident) in texts {
        if let Some(t) = source.text(ident, ttype) {
            w.put_text(ttype, ident, &t)?;
        }
    }
    Ok(())
}

/// A descriptor with every name the source gives its PMID, and the configured
/// name where the source does not list it.
pub(crate) fn put_desc(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    desc: Desc,
    rec: &Recorder,
) -> archive_format::Result<()> {
    let mut names = source.names(desc.pmid).unwrap_or_default();
    if let Some(n) = rec.names.get(&desc.pmid) {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    if names.is_empty() {
        names.push(desc.pmid.to_string());
    }
    w.put_desc(desc, &names)
}

/// Writes one fetch: metadata first (descriptors, labels, help, the descriptors of
/// event parameters, changed instance domains), then the values, so a reader never
/// sees a value before what describes it.
pub(crate) fn write_fetch(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    f: &mut sources::Fetched,
    rec: &mut Recorder,
    log: &mut dyn Write,
) -> Result<(), String> {
    let stamp = f.stamp;
    w.begin_fetch();
    if f.changes & pdu::pmcd::change::LABEL != 0 {
        // pmcd's context labels changed: the archive gets them again
        let sets = source.labels(label::CONTEXT, u32::MAX);
        if !sets.is_empty() {
            w.put_labels(stamp, label::CONTEXT as u32, u32::MAX, sets)
                .map_err(|e| e.to_string())?;
        }
    }
    // the record first (pmcd's PDU copied, or the built-in source's values
    // encoded), then its value sets read in place for what they bring
    let v = w.version();
    // a v2 archive keeps microseconds
    let kept = if v >= 3 {
        stamp
    } else {
        Timestamp::new(stamp.sec, stamp.nsec / 1000 * 1000)
    };
    let mut encoded = std::mem::take(&mut rec.payload);
    let payload: &[u8] = match &mut f.raw {
        // pmcd's PDU becomes the payload where it lies
        Some(r) => {
            let at = pdu::pmcd::payload_in_pdu(&mut r.pdu, r.vlist_at, r.numpmid, stamp, v)
                .map_err(|e| format!("bad result from pmcd: {e}"))?;
            &r.pdu[at..]
        }
        None => {
            encoded = archive_format::codec::result::encode_result(kept, &f.vsets, v);
            &encoded
        }
    };
    let sets = archive_format::codec::result::raw_value_sets(payload, v)
        .map_err(|e| format!("bad result: {e}"))?;
    // each instance domain is asked for and written at most once per fetch
    let mut asked: Vec<InDom> = Vec::new();
    for vs in &sets {
        describe(w, source, vs, stamp, rec, &mut asked, log)?;
    }
    drop(sets);
    let wrote = w.write_result_payload(kept, payload);
    rec.payload = encoded;
    wrote.map(|_| ()).map_err(|e| e.to_string())
}

/// What one value set of a fetch brings: its metric's descriptor, labels and
/// help the first time, pmlc's history, the descriptors of event parameters, and
/// its instance domain when it shows instances the archive has not got.
fn describe(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    vs: &archive_format::codec::result::RawValueSet<'_>,
    stamp: Timestamp,
    rec: &mut Recorder,
    asked: &mut Vec<InDom>,
    log: &mut dyn Write,
) -> Result<(), String> {
    let desc = match rec.metrics.get(&vs.pmid) {
        Some(m) => m.desc,
        None => {
            let Ok(desc) = source.desc(vs.pmid) else {
                return Ok(());
            };
            if !w.has_desc(vs.pmid) {
                put_desc(w, source, desc, rec).map_err(|e| e.to_string())?;
                write_labels(w, source, stamp, &desc, &mut rec.seen).map_err(|e| e.to_string())?;
                write_help(w, source, &desc, &mut rec.seen).map_err(|e| e.to_string())?;
            }
            rec.metrics.insert(vs.pmid, Seen::new(desc));
            desc
        }
    };
    let Some(m) = rec.metrics.get_mut(&vs.pmid) else {
        return Ok(());
    };
    // pmlc's history: what this fetch had (looked through only on change)
    let same = vs.insts_eq(&m.returned);
    if !same {
        m.returned.clear();
        m.returned.extend(vs.insts());
        m.ever.extend(vs.insts());
        m.checked = 0;
    }
    m.fetched = true;
    if vs.numval <= 0 {
        return Ok(());
    }
    if desc.vtype == vtype::EVENT || desc.vtype == vtype::HIGHRES_EVENT {
        describe_event_params(w, source, &desc, vs, log).map_err(|e| e.to_string())?;
    }
    if desc.indom.is_null() {
        return Ok(());
    }
    // the instance domain is asked for when this fetch shows instances the
    // latest snapshot lacks, or other instances than the metric's last fetch
    // (the same instances as last time, found in the same snapshot then,
    // need no looking through)
    let changed = !same
        || match rec.snapshot.get(&desc.indom) {
            None => true,
            Some((gen, _)) if *gen == m.checked => false,
            Some((gen, k)) => {
                let missing = vs.insts().any(|i| k.binary_search(&i).is_err());
                if !missing {
                    m.checked = *gen;
                }
                missing
            }
        };
    if changed && !asked.contains(&desc.indom) {
        asked.push(desc.indom);
        put_snapshot(w, source, stamp, desc.indom, rec)?;
    }
    Ok(())
}

/// The instance domain as the source has it now, written and remembered.
fn put_snapshot(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    stamp: Timestamp,
    indom: InDom,
    rec: &mut Recorder,
) -> Result<(), String> {
    let Ok(mut all) = source.instances(indom) else {
        return Ok(());
    };
    all.sort_by_key(|(i, _)| *i);
    w.put_indom(stamp, indom, &all).map_err(|e| e.to_string())?;
    rec.snapshots += 1;
    let insts = all.iter().map(|(i, _)| *i).collect();
    rec.snapshot.insert(indom, (rec.snapshots, insts));
    Ok(())
}

/// The descriptors of the parameters in a fetch's event records, each the first
/// time it appears, as the reference's pmlogger finds them: instance by instance,
/// stopping at the first instance without records (its loop returns there, so
/// the parameters of later instances wait for another fetch). A parameter pmcd
/// has no name for is named `event_param.D.C.I`, and one without a descriptor
/// gets an aggregate one, with the reference's warnings.
pub(crate) fn describe_event_params(
    w: &mut ArchiveWriter,
    source: &mut dyn Source,
    desc: &Desc,
    vs: &archive_format::codec::result::RawValueSet<'_>,
    log: &mut dyn Write,
) -> archive_format::Result<()> {
    let highres = desc.vtype == vtype::HIGHRES_EVENT;
    for v in vs.values() {
        let Ok((_, Value::Block { data, .. })) = v else {
            return Ok(());
        };
        let Ok(events) = archive_format::codec::event::decode_events(data, 0, highres) else {
            return Ok(());
        };
        if events.is_empty() {
            return Ok(());
        }
        for r in &events {
            for p in &r.params {
                if w.has_desc(p.pmid) {
                    continue;
                }
                let mut names = source.names(p.pmid).unwrap_or_default();
                if names.is_empty() {
                    let name = format!("event_param.{}", p.pmid);
                    let _ = writeln!(log, "Warning: metric {} has no name, using {name}", p.pmid);
                    names.push(name);
                }
                let d = match source.desc(p.pmid) {
                    Ok(d) => d,
                    Err(_) => {
                        let _ = writeln!(
                            log,
                            "Warning: metric {} ({}) has no descriptor, using a default one",
                            names[0], p.pmid
                        );
                        Desc {
                            pmid: p.pmid,
                            vtype: vtype::AGGREGATE,
                            indom: InDom::NULL,
                            sem: sem::DISCRETE,
                            units: Units(0),
                        }
                    }
                };
                w.put_desc(d, &names)?;
            }
        }
    }
    Ok(())
}

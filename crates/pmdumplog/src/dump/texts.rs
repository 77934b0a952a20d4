//! The texts a value line is made of, built once and kept: each metric's heading
//! (shared by the threads of a dump, with those of metrics the metadata lacks
//! added by each thread), and each instance's ` inst [N or "name"] value `.

use super::*;

/// What the lines of one metric's values need, worked out once per metric.
pub(super) struct MetricText {
    /// `    PMID (names): value ` (`<nonames>` when there is none), in the heads of
    /// its [`MetricTexts`]; without its last 7 bytes, the start of any of the
    /// metric's lines.
    pub(super) head_value: Piece,
    /// Type and instance domain from the descriptor, if there is one.
    desc: Option<(i32, InDom)>,
}

/// The length of ` value ` at the end of a `head_value`.
pub(super) const VALUE_WORD: usize = 7;

impl MetricText {
    /// `    PMID (names):`.
    pub(super) fn head(&self) -> Piece {
        self.head_value
            .prefix(self.head_value.len().saturating_sub(VALUE_WORD))
    }

    /// Type and instance domain of a value set; without a descriptor, the
    /// reference's guess from the value format.
    pub(super) fn kind(&self, valfmt: i32) -> (i32, InDom) {
        self.desc.unwrap_or(if valfmt == 0 {
            (vtype::I32, InDom::NULL)
        } else {
            (vtype::AGGREGATE, InDom::NULL)
        })
    }
}

/// Metrics' texts: those of every metric of the archive's metadata are built once
/// and shared by the threads of a dump; each thread adds those of metrics it meets
/// that the metadata does not have.
#[derive(Default)]
pub(super) struct MetricTexts {
    texts: Vec<MetricText>,
    heads: Padded,
    index: std::collections::HashMap<PmId, u32, std::hash::BuildHasherDefault<PmIdHasher>>,
}

impl MetricTexts {
    /// The texts of every metric with a descriptor or a name.
    pub(super) fn of_archive(a: &Archive) -> MetricTexts {
        let m = a.metadata();
        let mut t = MetricTexts::default();
        for d in m.descs() {
            t.find_or_add(a, d.pmid);
        }
        // (names of metrics without a descriptor are not in the name tree's
        // order of descriptors; a record of one is rare and built when met)
        t.heads.shrink_to_fit();
        t.texts.shrink_to_fit();
        t
    }

    pub(super) fn find(&self, pmid: PmId) -> Option<u32> {
        self.index.get(&pmid).copied()
    }

    pub(super) fn find_or_add(&mut self, a: &Archive, pmid: PmId) -> u32 {
        let (texts, heads) = (&mut self.texts, &mut self.heads);
        *self.index.entry(pmid).or_insert_with(|| {
            let names = names_str(a, pmid, "<nonames>");
            texts.push(MetricText {
                head_value: heads.add(|b| {
                    let _ = write!(b, "    {pmid} ({names}): value ");
                }),
                desc: a.metadata().desc(pmid).map(|d| (d.vtype, d.indom)),
            });
            texts.len() as u32 - 1
        })
    }
}

/// An instance's ` inst [N or "name"] value `, and the name in it.
pub(super) struct InstText {
    piece: Piece,
    name: Option<Box<str>>,
    /// The instance domain snapshot (by address) it was last checked against.
    snap: usize,
}

/// Instance texts kept at most (their bytes), beyond which they are all dropped
/// (an archive of a busy host meets new instances all the time).
pub(super) const INST_TEXT_MAX: usize = 8 << 20;

/// PMIDs are well spread already: a multiplicative hash instead of SipHash.
#[derive(Default)]
pub(super) struct PmIdHasher(u64);

impl std::hash::Hasher for PmIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Each metric's text, built once (most in the shared texts), and each instance's.
/// Records of an archive mostly hold the same metrics in the same order, so the
/// metric at each place in the last record is remembered and tried before the
/// hash table.
pub(super) struct MetricCache<'t> {
    shared: &'t MetricTexts,
    /// Texts of metrics that are not in the shared ones.
    own: MetricTexts,
    /// By instance domain and instance: the instance's text.
    insts: std::collections::HashMap<(u32, i32), InstText, foldhash::fast::RandomState>,
    inst_text: Padded,
    /// (PMID, text) at each place of the last record; a text of `own` has
    /// [`OWN`] set.
    slots: Vec<(PmId, u32)>,
    /// The instances of the last value set of each of the instance domains met
    /// most recently, with their texts: a set mostly holds the instances the
    /// last one of its domain held, in order, and each is then a comparison
    /// instead of a look-up.
    domain_insts: Vec<DomainInsts>,
    /// Which of them the value set being written is of.
    current: usize,
    /// Which of them a domain not among them replaces next.
    evict: usize,
    /// Counts the times the instance texts were all dropped (which makes the
    /// pieces [`DomainInsts`] remembers stale).
    inst_gen: u32,
}

/// Instance domains whose last value set [`MetricCache`] remembers.
const DOMAINS_KEPT: usize = 64;

/// The instances of a domain's last value set, and what their texts are good for.
#[derive(Default)]
pub(super) struct DomainInsts {
    indom: u32,
    snap: usize,
    gen: u32,
    insts: Vec<(i32, Piece)>,
}

/// Marks a text of a cache's own texts in its slots.
pub(super) const OWN: u32 = 1 << 31;

impl<'t> MetricCache<'t> {
    pub(super) fn new(shared: &'t MetricTexts) -> MetricCache<'t> {
        MetricCache {
            shared,
            own: MetricTexts::default(),
            insts: Default::default(),
            inst_text: Padded::default(),
            slots: Vec::new(),
            domain_insts: Vec::new(),
            current: 0,
            evict: 0,
            inst_gen: 0,
        }
    }

    pub(super) fn get(&mut self, a: &Archive, slot: usize, pmid: PmId) -> (&MetricText, &Padded) {
        let k = match self.slots.get(slot) {
            Some(&(p, k)) if p == pmid => k,
            _ => {
                let k = match self.shared.find(pmid) {
                    Some(k) => k,
                    None => self.own.find_or_add(a, pmid) | OWN,
                };
                if slot < self.slots.len() {
                    self.slots[slot] = (pmid, k);
                } else {
                    self.slots.push((pmid, k));
                }
                k
            }
        };
        let t = if k & OWN != 0 { &self.own } else { self.shared };
        (&t.texts[(k & !OWN) as usize], &t.heads)
    }

    /// Starts a value set of instance domain `indom` as snapshot `snap` has it:
    /// the instances remembered for the domain are kept when they are of the
    /// same snapshot, forgotten otherwise.
    pub(super) fn enter_set(
        &mut self,
        indom: InDom,
        snap: Option<&archive_format::metadata::Snapshot>,
    ) {
        let snap = snap_id(snap);
        // (sets of one domain mostly follow each other: the last one first)
        let hit = |d: &DomainInsts| d.indom == indom.0;
        let k = match self.domain_insts.get(self.current).is_some_and(hit) {
            true => Some(self.current),
            false => self.domain_insts.iter().position(hit),
        };
        let k = match k {
            Some(k) => k,
            None if self.domain_insts.len() < DOMAINS_KEPT => {
                self.domain_insts.push(DomainInsts::default());
                self.domain_insts.len() - 1
            }
            None => {
                self.evict = (self.evict + 1) % DOMAINS_KEPT;
                self.evict
            }
        };
        self.current = k;
        let d = &mut self.domain_insts[k];
        if (d.indom, d.snap, d.gen) != (indom.0, snap, self.inst_gen) {
            d.indom = indom.0;
            d.snap = snap;
            d.gen = self.inst_gen;
            d.insts.clear();
        }
    }

    /// Appends the text of instance `inst`, value `j` of the value set entered
    /// with [`MetricCache::enter_set`] (for `indom` and `snap`).
    pub(super) fn push_inst_at(
        &mut self,
        j: usize,
        indom: InDom,
        inst: i32,
        snap: Option<&archive_format::metadata::Snapshot>,
        line: &mut Vec<u8>,
    ) {
        let k = self.current;
        if let Some(&(i, p)) = self.domain_insts.get(k).and_then(|d| d.insts.get(j)) {
            if i == inst {
                self.inst_text.push_to(p, line);
                return;
            }
        }
        let gen = self.inst_gen;
        let p = self.inst_piece(indom, inst, snap);
        self.inst_text.push_to(p, line);
        let Some(d) = self.domain_insts.get_mut(k) else {
            return;
        };
        if gen != self.inst_gen {
            // the texts were dropped: what the domain remembered is stale
            d.insts.clear();
            d.gen = self.inst_gen;
        }
        match j.cmp(&d.insts.len()) {
            std::cmp::Ordering::Less => d.insts[j] = (inst, p),
            std::cmp::Ordering::Equal => d.insts.push((inst, p)),
            std::cmp::Ordering::Greater => {}
        }
    }

    /// The text of instance `inst` of `indom` as snapshot `snap` names it
    /// (built once, checked again only when the snapshot in force changes).
    fn inst_piece(
        &mut self,
        indom: InDom,
        inst: i32,
        snap: Option<&archive_format::metadata::Snapshot>,
    ) -> Piece {
        let snap_id = snap_id(snap);
        let key = (indom.0, inst);
        if let Some(t) = self.insts.get_mut(&key) {
            if t.snap == snap_id {
                return t.piece;
            }
            let name = snap.and_then(|s| s.name_of(inst));
            if t.name.as_deref() == name {
                t.snap = snap_id;
                return t.piece;
            }
        }
        if self.inst_text.len() > INST_TEXT_MAX {
            self.insts.clear();
            self.inst_text.truncate_to(None);
            self.inst_gen = self.inst_gen.wrapping_add(1);
        }
        let name = snap.and_then(|s| s.name_of(inst));
        let piece = self.inst_text.add(|b| {
            push_inst(b, inst, name);
            b.extend_from_slice(b" value ");
        });
        self.insts.insert(
            key,
            InstText {
                piece,
                name: name.map(Box::from),
                snap: snap_id,
            },
        );
        piece
    }
}

/// A snapshot's identity (its address), 0 for none.
fn snap_id(snap: Option<&archive_format::metadata::Snapshot>) -> usize {
    snap.map_or(0, |s| s as *const _ as usize)
}

/// ` inst [N or "name"]` (`???` for an instance not in the domain).
pub(super) fn push_inst(line: &mut Vec<u8>, inst: i32, name: Option<&str>) {
    line.extend_from_slice(b" inst [");
    fast::push_i32(line, inst);
    match name {
        Some(n) => {
            line.extend_from_slice(b" or \"");
            line.extend_from_slice(n.as_bytes());
            line.extend_from_slice(b"\"]");
        }
        None => line.extend_from_slice(b" or ???]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The instance texts `cache` writes for `insts`, a value set of instance
    /// domain `indom` (no snapshot: every name is `???`).
    fn texts(cache: &mut MetricCache<'_>, indom: u32, insts: &[i32]) -> String {
        let indom = InDom(indom);
        cache.enter_set(indom, None);
        let mut line = Vec::new();
        for (j, &i) in insts.iter().enumerate() {
            cache.push_inst_at(j, indom, i, None, &mut line);
            line.push(b'|');
        }
        String::from_utf8(line).expect("text")
    }

    fn want(insts: &[i32]) -> String {
        insts
            .iter()
            .map(|i| format!(" inst [{i} or ???] value |"))
            .collect()
    }

    #[test]
    fn a_domain_remembers_its_instances_and_follows_their_changes() {
        let shared = MetricTexts::default();
        let mut cache = MetricCache::new(&shared);
        // sets of two domains in turn, one of them changing
        for insts in [
            &[10, 11, 12][..],
            &[10, 11, 12],
            &[10, 99, 12],
            &[12, 11],
            &[12, 11, 10, 13],
            &[],
            &[5],
        ] {
            assert_eq!(texts(&mut cache, 7, insts), want(insts));
            assert_eq!(texts(&mut cache, 8, &[1, 2]), want(&[1, 2]));
        }
    }

    #[test]
    fn more_domains_than_are_kept() {
        let shared = MetricTexts::default();
        let mut cache = MetricCache::new(&shared);
        for round in 0..3 {
            for d in 0..DOMAINS_KEPT as u32 * 2 {
                let insts = [d as i32, round];
                assert_eq!(texts(&mut cache, d, &insts), want(&insts));
            }
        }
        assert_eq!(cache.domain_insts.len(), DOMAINS_KEPT);
    }

    #[test]
    fn a_domain_forgets_texts_that_were_dropped() {
        let shared = MetricTexts::default();
        let mut cache = MetricCache::new(&shared);
        let kept = [10, 11, 12];
        assert_eq!(texts(&mut cache, 7, &kept), want(&kept));
        // new instances of another domain until the texts are all dropped and
        // made again: the pieces domain 7 remembered now hold other texts
        let mut i = 1000;
        while cache.inst_gen == 0 {
            texts(&mut cache, 8, &[i]);
            i += 1;
        }
        for _ in 0..3 {
            texts(&mut cache, 8, &[i]);
            i += 1;
        }
        assert_eq!(texts(&mut cache, 7, &kept), want(&kept));
    }
}

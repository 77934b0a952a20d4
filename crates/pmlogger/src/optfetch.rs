//! How a task's requests are bundled into fetches, as libpcp's optFetch does it
//! for PCP's pmlogger: each request joins the fetch group that costs least once
//! it is in (pmlogger sets optFetch's scope to global, so a group's whole cost
//! counts, not what the request adds to it: a new group costs 15, each PMID
//! domain 4, each instance-domain domain 1, each instance fetched that a metric
//! did not ask for 2, with 10 instances assumed for "all"), ties going to the
//! group tried first (a new group, then the others in list order, newest first).
//! So whether two requests share a fetch depends on everything already in the
//! group, and on the order the requests arrive in. Each group is one fetch and one archive record, its
//! PMIDs in descending order, its profile the union of its requests' instances
//! for each instance domain. Pure.

use archive_format::types::{InDom, PmId};

const C_PMID: i64 = 4;
const C_INDOM: i64 = 1;
const C_FETCH: i64 = 15;
const C_INDOMSIZE: i64 = 10;
const C_XTRAINST: i64 = 2;

/// An instance list: `None` none yet, `Some(empty)` all, else the instances
/// (ascending).
type Insts = Option<Vec<i32>>;

/// A request as the groups see it: its metric, instance domain and instances
/// (empty = all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Req {
    pub id: usize,
    pub pmid: PmId,
    pub indom: InDom,
    pub insts: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct PmidCtl {
    pmid: PmId,
    insts: Insts,
    /// Requests, newest first.
    reqs: Vec<Req>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct IndomCtl {
    indom: InDom,
    insts: Insts,
    /// Metrics, newest first.
    pmids: Vec<PmidCtl>,
}

/// One fetch group.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Group {
    /// Instance domains, newest first.
    idps: Vec<IndomCtl>,
}

/// `addinst`: the union of an instance list and a request's; a request for all
/// makes it all. Returns whether the list changed.
fn add_insts(list: &mut Insts, r: &[i32]) -> bool {
    if matches!(list, Some(l) if l.is_empty()) {
        return false;
    }
    if r.is_empty() {
        *list = Some(Vec::new());
        return true;
    }
    let l = list.get_or_insert_with(Vec::new);
    for i in r {
        if let Err(at) = l.binary_search(i) {
            l.insert(at, *i);
        }
    }
    true
}

/// `missinst`: how many more instances `a` fetches than `b` wants.
fn missing(a: &Insts, b: &Insts) -> i64 {
    let (la, lb) = (a.as_deref(), b.as_deref());
    match la {
        Some([]) => match lb {
            Some([]) => 0,
            Some(l) if (l.len() as i64) < C_INDOMSIZE => C_INDOMSIZE - l.len() as i64,
            Some(_) => 0,
            // no instances yet counts as -1 in the reference
            None => C_INDOMSIZE + 1,
        },
        _ => {
            let a = la.unwrap_or(&[]);
            let b = lb.unwrap_or(&[]);
            let (mut i, mut j, mut x) = (0, 0, 0i64);
            while i < a.len() && j < b.len() {
                match a[i].cmp(&b[j]) {
                    std::cmp::Ordering::Equal => {
                        i += 1;
                        j += 1;
                    }
                    std::cmp::Ordering::Less => {
                        i += 1;
                        x += 1;
                    }
                    std::cmp::Ordering::Greater => {
                        j += 1;
                        x += 1;
                    }
                }
            }
            x + (a.len() - i) as i64 + (b.len() - j) as i64
        }
    }
}

impl Group {
    /// `optCost`.
    fn cost(&self) -> i64 {
        let mut doms: Vec<u32> = Vec::new();
        for idp in &self.idps {
            for pmp in &idp.pmids {
                let d = (pmp.pmid.0 >> 22) & 0x1ff;
                if !doms.contains(&d) {
                    doms.push(d);
                }
            }
        }
        let mut cost = C_PMID * doms.len() as i64;
        let mut idoms: Vec<u32> = Vec::new();
        for idp in &self.idps {
            let d = (idp.indom.0 >> 22) & 0x1ff;
            if !idoms.contains(&d) {
                idoms.push(d);
            }
        }
        cost += C_INDOM * idoms.len() as i64;
        for idp in &self.idps {
            for pmp in &idp.pmids {
                cost += C_XTRAINST * missing(&idp.insts, &pmp.insts);
            }
        }
        cost
    }

    /// `redoinst`: the instance lists again from the requests.
    fn redo(&mut self) {
        for idp in &mut self.idps {
            idp.insts = None;
            for pmp in &mut idp.pmids {
                pmp.insts = None;
                for r in &pmp.reqs {
                    add_insts(&mut pmp.insts, &r.insts);
                    add_insts(&mut idp.insts, &r.insts);
                }
            }
        }
    }

    /// Adds a request tentatively; returns what to undo (a new indom, a new pmid).
    fn try_add(&mut self, r: &Req) -> (bool, bool) {
        let (mut new_idp, mut new_pmp) = (false, false);
        let at = match self.idps.iter().position(|i| i.indom == r.indom) {
            Some(at) => at,
            None => {
                self.idps.insert(
                    0,
                    IndomCtl {
                        indom: r.indom,
                        insts: None,
                        pmids: Vec::new(),
                    },
                );
                new_idp = true;
                0
            }
        };
        let idp = &mut self.idps[at];
        let p = match idp.pmids.iter().position(|p| p.pmid == r.pmid) {
            Some(p) => p,
            None => {
                idp.pmids.insert(
                    0,
                    PmidCtl {
                        pmid: r.pmid,
                        insts: None,
                        reqs: Vec::new(),
                    },
                );
                new_pmp = true;
                0
            }
        };
        add_insts(&mut idp.pmids[p].insts, &r.insts);
        add_insts(&mut idp.insts, &r.insts);
        (new_idp, new_pmp)
    }

    /// The metrics this group fetches, in descending PMID order (`addpmid`).
    pub fn pmids(&self) -> Vec<PmId> {
        let mut v: Vec<PmId> = self
            .idps
            .iter()
            .flat_map(|i| i.pmids.iter().map(|p| p.pmid))
            .collect();
        v.sort_unstable_by_key(|p| std::cmp::Reverse(p.0));
        v.dedup();
        v
    }

    /// The instance profile: instance domains fetched in part, with their
    /// instances.
    pub fn profile(&self) -> Vec<(InDom, Vec<i32>)> {
        self.idps
            .iter()
            .filter(|i| !i.indom.is_null())
            .filter_map(|i| match &i.insts {
                Some(l) if !l.is_empty() => Some((i.indom, l.clone())),
                _ => None,
            })
            .collect()
    }

    /// Every request of the group.
    pub fn requests(&self) -> impl Iterator<Item = &Req> {
        self.idps
            .iter()
            .flat_map(|i| i.pmids.iter().flat_map(|p| p.reqs.iter()))
    }
}

/// `__pmOptFetchAdd` with pmlogger's global scope: the request joins the group
/// whose cost with it is least (a new one at the head of the list when that is
/// cheapest).
pub fn add(groups: &mut Vec<Group>, r: Req) {
    groups.insert(0, Group::default());
    let mut best = 0;
    let mut min = i64::MAX;
    let mut undo = Vec::with_capacity(groups.len());
    for (k, g) in groups.iter_mut().enumerate() {
        let u = g.try_add(&r);
        undo.push(u);
        let mut after = g.cost();
        if k == 0 {
            after += C_FETCH;
        }
        if after < min {
            min = after;
            best = k;
        }
    }
    for k in (0..groups.len()).rev() {
        if k == best {
            let g = &mut groups[k];
            let Some(idp) = g.idps.iter_mut().find(|i| i.indom == r.indom) else {
                continue;
            };
            let Some(pmp) = idp.pmids.iter_mut().find(|p| p.pmid == r.pmid) else {
                continue;
            };
            pmp.reqs.insert(0, r.clone());
            continue;
        }
        let (new_idp, new_pmp) = undo[k];
        if k == 0 {
            groups.remove(0);
            continue;
        }
        let g = &mut groups[k];
        if let Some(at) = g.idps.iter().position(|i| i.indom == r.indom) {
            if new_pmp {
                g.idps[at].pmids.remove(0);
            }
            if new_idp {
                g.idps.remove(at);
            }
        }
        g.redo();
    }
}

/// `__pmOptFetchDel`: takes request `id` out; empty metrics, instance domains and
/// groups go with it. Returns the request, or `None` when no group holds it.
pub fn del(groups: &mut Vec<Group>, id: usize) -> Option<Req> {
    for gk in 0..groups.len() {
        let g = &mut groups[gk];
        for ik in 0..g.idps.len() {
            for pk in 0..g.idps[ik].pmids.len() {
                let Some(rk) = g.idps[ik].pmids[pk].reqs.iter().position(|r| r.id == id) else {
                    continue;
                };
                let r = g.idps[ik].pmids[pk].reqs.remove(rk);
                if g.idps[ik].pmids[pk].reqs.is_empty() {
                    g.idps[ik].pmids.remove(pk);
                    if g.idps[ik].pmids.is_empty() {
                        g.idps.remove(ik);
                    }
                }
                if g.idps.is_empty() {
                    groups.remove(gk);
                } else {
                    g.redo();
                }
                return Some(r);
            }
        }
    }
    None
}

/// A request of the group (by id), to change in place (the reference's
/// `chk_all` widens one to all instances without regrouping).
pub fn widen_to_all(groups: &mut [Group], id: usize) {
    for g in groups {
        for idp in &mut g.idps {
            for pmp in &mut idp.pmids {
                for r in &mut pmp.reqs {
                    if r.id == id {
                        r.insts.clear();
                        idp.insts = Some(Vec::new());
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: usize, item: u32, indom: InDom, insts: &[i32]) -> Req {
        Req {
            id,
            pmid: PmId::new(29, 0, item),
            indom,
            insts: insts.to_vec(),
        }
    }

    /// The reference's grouping, observed: `bin [100,300] colour [0,2]`, then
    /// `bin_ctr [900] part_bin`, then bin loses 300 to another task and colour
    /// is re-added (a no-op undo): part_bin and colour in one record, bin_ctr
    /// and bin in another.
    #[test]
    fn reference_grouping() {
        let (bins, colours) = (InDom::new(29, 2), InDom::new(29, 1));
        let mut g = Vec::new();
        add(&mut g, req(1, 6, bins, &[100, 300]));
        add(&mut g, req(2, 5, colours, &[0, 2]));
        assert_eq!(g.len(), 1);
        add(&mut g, req(3, 104, bins, &[900]));
        add(&mut g, req(4, 50, bins, &[]));
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].pmids(), vec![PmId::new(29, 0, 50)]);
        let mut bin = del(&mut g, 1).expect("bin");
        bin.insts = vec![100];
        add(&mut g, bin);
        let colour = del(&mut g, 2).expect("colour");
        add(&mut g, colour);
        assert_eq!(
            g[0].pmids(),
            vec![PmId::new(29, 0, 50), PmId::new(29, 0, 5)]
        );
        assert_eq!(
            g[1].pmids(),
            vec![PmId::new(29, 0, 104), PmId::new(29, 0, 6)]
        );
        assert_eq!(g[1].profile(), vec![(bins, vec![100, 900])]);
        assert!(g[0].profile().contains(&(colours, vec![0, 2])));
        assert!(del(&mut g, 4).is_some() && del(&mut g, 2).is_some());
        assert_eq!(g.len(), 1);
        assert!(del(&mut g, 99).is_none());
    }

    /// The group's whole cost decides, not what the request adds: bin held to
    /// two instances and ulonglong.bin whole cost 21 together (4 + 1 + 2 x 8
    /// instances bin does not want), more than a group of their own (20);
    /// with three instances 19, so they share. By increments both would share.
    #[test]
    fn global_cost_splits_a_partial_metric_from_a_whole_one() {
        let bins = InDom::new(29, 2);
        for (insts, groups) in [(&[100, 300][..], 2), (&[100, 300, 500][..], 1)] {
            let mut g = Vec::new();
            add(&mut g, req(1, 6, bins, insts));
            add(&mut g, req(2, 111, bins, &[]));
            assert_eq!(g.len(), groups, "bin {insts:?}");
        }
        // whatever else is in the group counts: those two sharing (19), a
        // singular metric of the same agent would make it 20 (a second instance
        // domain's domain), no cheaper than a group of its own, which wins ties
        let mut g = Vec::new();
        add(&mut g, req(1, 6, bins, &[100, 300, 500]));
        add(&mut g, req(2, 111, bins, &[]));
        add(&mut g, req(3, 10, InDom::NULL, &[]));
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].pmids(), vec![PmId::new(29, 0, 10)]);
    }

    #[test]
    fn singular_metrics_share_one_group() {
        let mut g = Vec::new();
        for item in [10, 11, 2, 93] {
            add(&mut g, req(item as usize, item, InDom::NULL, &[]));
        }
        add(&mut g, req(7, 5, InDom::new(29, 1), &[]));
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].pmids().len(), 5);
        assert!(g[0].profile().is_empty());
    }

    #[test]
    fn missing_instances() {
        assert_eq!(missing(&Some(vec![]), &Some(vec![1, 2])), 8);
        assert_eq!(missing(&Some(vec![1, 2, 3]), &Some(vec![2, 4])), 3);
        assert_eq!(missing(&Some(vec![]), &Some(vec![])), 0);
    }
}

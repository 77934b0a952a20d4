//! A label as libpcp's loader leaves it, field by field, for tools that
//! inspect and repair damaged labels (pmloglabel): the loader checks only the
//! record's framing, fills what it got to before a check failed, and says
//! which error stopped it. [`super::label::decode_label`] is the strict
//! decoder every reader uses.

use super::label::{encode_label, Label, LABEL_V2_LEN, LABEL_V3_LEN, PM_LOG_MAGIC};
use crate::error::{PM_ERR_LABEL, PM_ERR_NODATA};
use crate::types::Timestamp;

/// The fields of a label as far as they were loaded. Strings are `None`
/// where the loader never set them (or dropped them: a bad trailer).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawLabel {
    pub magic: u32,
    pub pid: i32,
    pub sec: i64,
    pub nsec: i64,
    pub vol: i32,
    pub features: u32,
    pub hostname: Option<String>,
    pub timezone: Option<String>,
    pub zoneinfo: Option<String>,
}

impl RawLabel {
    /// The version in the magic number's low byte.
    pub fn version(&self) -> u32 {
        self.magic & 0xff
    }

    /// The label's record length on disk for its version (0 for another).
    pub fn record_len(&self) -> u64 {
        match self.version() {
            2 => LABEL_V2_LEN as u64,
            3 => LABEL_V3_LEN as u64,
            _ => 0,
        }
    }
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// A NUL-terminated string of at most `max` bytes from `b`.
fn cstr(b: &[u8], max: usize) -> String {
    let b = &b[..b.len().min(max)];
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Loads the label at the start of `file` into `l` as libpcp's
/// `__pmLogLoadLabel` does: the magic number as soon as the first two words
/// are there, the rest once the body is, the strings dropped again when the
/// trailer disagrees. The error is `PM_ERR_NODATA` for a file shorter than two
/// words, else `PM_ERR_LABEL`.
pub fn load(file: &[u8], l: &mut RawLabel) -> Result<(), i32> {
    if file.len() < 8 {
        return Err(PM_ERR_NODATA);
    }
    let length = be32(file, 0) as usize;
    l.magic = be32(file, 4);
    let want = match l.version() {
        3 => LABEL_V3_LEN,
        2 => LABEL_V2_LEN,
        _ => return Err(PM_ERR_LABEL),
    };
    if length != want || file.len() < want - 4 {
        return Err(PM_ERR_LABEL);
    }
    l.pid = be32(file, 8) as i32;
    if l.version() == 3 {
        // the seconds' two words, the low one first
        let lo = u64::from(be32(file, 12));
        let hi = u64::from(be32(file, 16));
        l.sec = ((hi << 32) | lo) as i64;
        l.nsec = i64::from(be32(file, 20));
        l.vol = be32(file, 24) as i32;
        l.features = be32(file, 28);
        l.hostname = Some(cstr(&file[36..292], 255));
        l.timezone = Some(cstr(&file[292..548], 255));
        l.zoneinfo = Some(cstr(&file[548..804], 255));
    } else {
        l.sec = i64::from(be32(file, 12) as i32);
        l.nsec = i64::from(be32(file, 16) as i32) * 1000;
        l.vol = be32(file, 20) as i32;
        l.features = 0;
        l.hostname = Some(cstr(&file[24..88], 63));
        l.timezone = Some(cstr(&file[88..128], 39));
        l.zoneinfo = None;
    }
    if file.len() < want || be32(file, want - 4) as usize != length {
        l.hostname = None;
        l.timezone = None;
        l.zoneinfo = None;
        return Err(PM_ERR_LABEL);
    }
    Ok(())
}

/// libpcp's `__pmLogChkLabel` without its feature check: the label loaded,
/// then its magic number and volume checked, and a file holding nothing but
/// the label is empty (`PM_ERR_NODATA`). Returns the version.
pub fn check(file: &[u8], vol: i32, l: &mut RawLabel) -> Result<u32, i32> {
    load(file, l)?;
    if l.magic & 0xffff_ff00 != PM_LOG_MAGIC || l.vol != vol {
        return Err(PM_ERR_LABEL);
    }
    if file.len() as u64 == l.record_len() {
        return Err(PM_ERR_NODATA);
    }
    Ok(l.version())
}

/// The label record `l` makes, as libpcp's `__pmLogWriteLabel` writes it
/// (strings cut to their fields, a missing one empty); `None` for a version
/// other than 2 or 3.
pub fn encode(l: &RawLabel) -> Option<Vec<u8>> {
    let version = l.version();
    if version != 2 && version != 3 {
        return None;
    }
    let label = Label {
        version,
        pid: l.pid,
        start: Timestamp::new(l.sec, l.nsec.clamp(0, i64::from(u32::MAX)) as u32),
        vol: l.vol,
        features: l.features,
        hostname: l.hostname.clone().unwrap_or_default(),
        timezone: l.timezone.clone().unwrap_or_default(),
        zoneinfo: l.zoneinfo.clone().unwrap_or_default(),
    };
    let mut bytes = encode_label(&label);
    // the magic number's other bytes are PCP's whatever the label held
    bytes[4..8].copy_from_slice(&(PM_LOG_MAGIC | version).to_be_bytes());
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::label::VOL_META;

    fn label(version: u32) -> Vec<u8> {
        encode_label(&Label {
            version,
            pid: 77,
            start: Timestamp::new(1_600_000_000, 5_000),
            vol: VOL_META,
            features: 0,
            hostname: "h".into(),
            timezone: "UTC".into(),
            zoneinfo: if version == 3 {
                "z".into()
            } else {
                String::new()
            },
        })
    }

    #[test]
    fn a_good_label_loads_whole() {
        for v in [2, 3] {
            let mut file = label(v);
            file.push(0);
            let mut l = RawLabel::default();
            assert_eq!(check(&file, VOL_META, &mut l), Ok(v));
            assert_eq!((l.pid, l.sec, l.nsec), (77, 1_600_000_000, 5_000));
            assert_eq!(l.hostname.as_deref(), Some("h"));
            assert_eq!(l.zoneinfo.is_some(), v == 3);
        }
    }

    #[test]
    fn what_stops_the_loader_and_what_it_leaves() {
        let mut l = RawLabel::default();
        assert_eq!(load(&[0; 7], &mut l), Err(PM_ERR_NODATA));
        // version 1: the magic number is kept, nothing else
        let mut file = label(2);
        file[7] = 1;
        assert_eq!(load(&file, &mut l), Err(PM_ERR_LABEL));
        assert_eq!((l.version(), l.hostname.clone()), (1, None));
        // a bad trailer: numbers kept, strings dropped
        let mut file = label(2);
        file[131] ^= 1;
        let mut l = RawLabel::default();
        assert_eq!(load(&file, &mut l), Err(PM_ERR_LABEL));
        assert_eq!((l.pid, l.hostname.clone()), (77, None));
        // only the label: empty; the wrong volume: a bad label
        let file = label(3);
        assert_eq!(check(&file, VOL_META, &mut l), Err(PM_ERR_NODATA));
        assert_eq!(check(&file, 0, &mut l), Err(PM_ERR_LABEL));
    }

    #[test]
    fn what_loads_encodes_back() {
        for v in [2, 3] {
            let file = label(v);
            let mut l = RawLabel::default();
            load(&file, &mut l).expect("a good label");
            assert_eq!(encode(&l), Some(file));
        }
        let l = RawLabel {
            magic: PM_LOG_MAGIC | 1,
            ..RawLabel::default()
        };
        assert_eq!(encode(&l), None);
    }

    proptest::proptest! {
        #[test]
        fn what_encodes_loads_back(
            v3 in proptest::bool::ANY,
            pid in proptest::num::i32::ANY,
            sec in 0i64..(1 << 31),
            usec in 0i64..1_000_000,
            vol in -2i32..100,
            host in "[a-z.]{0,63}",
            tz in "[A-Z0-9+-]{0,39}",
            zone in "[A-Za-z/:]{0,80}",
        ) {
            let version = if v3 { 3 } else { 2 };
            let l = RawLabel {
                magic: PM_LOG_MAGIC | version,
                pid,
                sec,
                nsec: usec * 1000,
                vol,
                features: if v3 { 0x8000_0000 } else { 0 },
                hostname: Some(host),
                timezone: Some(tz),
                zoneinfo: v3.then_some(zone),
            };
            let mut file = encode(&l).expect("versions 2 and 3 encode");
            file.push(0);
            let mut back = RawLabel::default();
            proptest::prop_assert_eq!(check(&file, vol, &mut back), Ok(version));
            proptest::prop_assert_eq!(back, l);
        }
    }
}

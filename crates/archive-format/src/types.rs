//! Core PCP types: metric identifiers (pmID), instance domains (pmInDom), units
//! (pmUnits), value types and semantics, timestamps and metric descriptors (pmDesc),
//! with their PCP text forms.

use std::fmt;

/// A metric identifier, PCP's `pmID`: `flag:1 | domain:9 | cluster:12 | item:10`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PmId(pub u32);

impl PmId {
    pub const NULL: PmId = PmId(0xffff_ffff);
    pub const fn new(domain: u32, cluster: u32, item: u32) -> Self {
        PmId((domain & 0x1ff) << 22 | (cluster & 0xfff) << 10 | (item & 0x3ff))
    }
    pub fn domain(self) -> u32 {
        (self.0 >> 22) & 0x1ff
    }
    pub fn cluster(self) -> u32 {
        (self.0 >> 10) & 0xfff
    }
    pub fn item(self) -> u32 {
        self.0 & 0x3ff
    }
}

impl fmt::Display for PmId {
    /// `pmIDStr`: `domain.cluster.item`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == PmId::NULL {
            f.write_str("PM_ID_NULL")
        } else if self.domain() == 511 && self.item() == 0 {
            write!(f, "{}.*.*", self.cluster())
        } else {
            write!(f, "{}.{}.{}", self.domain(), self.cluster(), self.item())
        }
    }
}

/// An instance domain identifier, PCP's `pmInDom`: `flag:1 | domain:9 | serial:22`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct InDom(pub u32);

impl InDom {
    pub const NULL: InDom = InDom(0xffff_ffff);
    pub const fn new(domain: u32, serial: u32) -> Self {
        InDom((domain & 0x1ff) << 22 | (serial & 0x3f_ffff))
    }
    pub fn domain(self) -> u32 {
        (self.0 >> 22) & 0x1ff
    }
    pub fn serial(self) -> u32 {
        self.0 & 0x3f_ffff
    }
    pub fn is_null(self) -> bool {
        self == InDom::NULL
    }
}

impl fmt::Display for InDom {
    /// `pmInDomStr`: `domain.serial`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            f.write_str("PM_INDOM_NULL")
        } else {
            write!(f, "{}.{}", self.domain(), self.serial())
        }
    }
}

/// Value type codes (`PM_TYPE_*`).
pub mod vtype {
    pub const NOSUPPORT: i32 = -1;
    pub const I32: i32 = 0;
    pub const U32: i32 = 1;
    pub const I64: i32 = 2;
    pub const U64: i32 = 3;
    pub const FLOAT: i32 = 4;
    pub const DOUBLE: i32 = 5;
    pub const STRING: i32 = 6;
    pub const AGGREGATE: i32 = 7;
    pub const AGGREGATE_STATIC: i32 = 8;
    pub const EVENT: i32 = 9;
    pub const HIGHRES_EVENT: i32 = 10;
    pub const UNKNOWN: i32 = 255;

    /// Long form used by `pmdumplog -d` (`__pmPrintDesc`).
    pub fn long_name(t: i32) -> Option<&'static str> {
        Some(match t {
            I32 => "32-bit int",
            U32 => "32-bit unsigned int",
            I64 => "64-bit int",
            U64 => "64-bit unsigned int",
            FLOAT => "float",
            DOUBLE => "double",
            STRING => "string",
            AGGREGATE => "aggregate",
            AGGREGATE_STATIC => "static aggregate",
            EVENT => "event record array",
            HIGHRES_EVENT => "highres event record array",
            _ => return None,
        })
    }

    /// Short form (`pmTypeStr`).
    pub fn short_name(t: i32) -> &'static str {
        match t {
            I32 => "32",
            U32 => "U32",
            I64 => "64",
            U64 => "U64",
            FLOAT => "FLOAT",
            DOUBLE => "DOUBLE",
            STRING => "STRING",
            AGGREGATE => "AGGREGATE",
            AGGREGATE_STATIC => "AGGREGATE_STATIC",
            EVENT => "EVENT",
            HIGHRES_EVENT => "HIGHRES_EVENT",
            NOSUPPORT => "NO_SUPPORT",
            UNKNOWN => "UNKNOWN",
            _ => "???",
        }
    }
}

/// Semantics codes (`PM_SEM_*`).
pub mod sem {
    pub const COUNTER: i32 = 1;
    pub const INSTANT: i32 = 3;
    pub const DISCRETE: i32 = 4;

    pub fn name(s: i32) -> Option<&'static str> {
        Some(match s {
            COUNTER => "counter",
            INSTANT => "instant",
            DISCRETE => "discrete",
            _ => return None,
        })
    }
}

/// Units and scale of a metric (`pmUnits`), packed exactly as on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Units(pub u32);

fn nibble_signed(v: u32) -> i32 {
    let n = (v & 0xf) as i32;
    if n >= 8 {
        n - 16
    } else {
        n
    }
}

impl Units {
    /// Units of these dimensions and scales, each kept in its four bits as
    /// the on-disk word keeps it (dimensions and the count scale signed).
    pub const fn new(dims: [i32; 3], scales: [u32; 2], scale_count: i32) -> Units {
        Units(
            ((dims[0] as u32) & 0xf) << 28
                | ((dims[1] as u32) & 0xf) << 24
                | ((dims[2] as u32) & 0xf) << 20
                | (scales[0] & 0xf) << 16
                | (scales[1] & 0xf) << 12
                | ((scale_count as u32) & 0xf) << 8,
        )
    }
    pub fn dim_space(self) -> i32 {
        nibble_signed(self.0 >> 28)
    }
    pub fn dim_time(self) -> i32 {
        nibble_signed(self.0 >> 24)
    }
    pub fn dim_count(self) -> i32 {
        nibble_signed(self.0 >> 20)
    }
    pub fn scale_space(self) -> u32 {
        (self.0 >> 16) & 0xf
    }
    pub fn scale_time(self) -> u32 {
        (self.0 >> 12) & 0xf
    }

    /// The factor pmval applies to a rate of a counter with a time dimension, so
    /// that it shows as its own time units per second (a utilisation): 1 without
    /// a time dimension.
    pub fn time_rate_scale(self) -> f64 {
        if self.dim_time() == 0 {
            return 1.0;
        }
        let st = self.scale_time() as i32;
        if st > 3 {
            60f64.powi(3 - st)
        } else {
            1000f64.powi(3 - st)
        }
    }
    pub fn scale_count(self) -> i32 {
        nibble_signed(self.0 >> 8)
    }
    /// The same units with another time dimension and time scale.
    pub fn with_time(self, dim: i32, scale: u32) -> Units {
        let v = self.0 & !(0xf << 24) & !(0xf << 12);
        Units(v | ((dim as u32 & 0xf) << 24) | ((scale & 0xf) << 12))
    }
}

impl fmt::Display for Units {
    /// `pmUnitsStr`; empty when dimensionless with no count scale.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SPACE: [&str; 9] = [
            "byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "Pbyte", "Ebyte", "Zbyte", "Ybyte",
        ];
        const TIME: [&str; 6] = ["nanosec", "microsec", "millisec", "sec", "min", "hour"];
        let space = match SPACE.get(self.scale_space() as usize) {
            Some(s) => s.to_string(),
            None => format!("space-{}", self.scale_space()),
        };
        let time = match TIME.get(self.scale_time() as usize) {
            Some(s) => s.to_string(),
            None => format!("time-{}", self.scale_time()),
        };
        let count = match self.scale_count() {
            0 => "count".to_string(),
            1 => "count x 10".to_string(),
            n => format!("count x 10^{n}"),
        };
        let dims = [
            (self.dim_space(), space),
            (self.dim_time(), time),
            (self.dim_count(), count),
        ];
        if dims.iter().all(|(d, _)| *d == 0) {
            return match self.scale_count() {
                0 => Ok(()),
                1 => f.write_str("x 10"),
                n => write!(f, "x 10^{n}"),
            };
        }
        let mut parts: Vec<String> = Vec::new();
        for (d, name) in dims.iter().filter(|(d, _)| *d > 0) {
            parts.push(if *d == 1 {
                name.clone()
            } else {
                format!("{name}^{d}")
            });
        }
        let neg: Vec<String> = dims
            .iter()
            .filter(|(d, _)| *d < 0)
            .map(|(d, name)| {
                if *d == -1 {
                    name.clone()
                } else {
                    format!("{name}^{}", -d)
                }
            })
            .collect();
        let mut s = parts.join(" ");
        if !neg.is_empty() {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str("/ ");
            s.push_str(&neg.join(" "));
        }
        f.write_str(&s)
    }
}

/// A timestamp: seconds since the epoch and nanoseconds. v2 archives only carry
/// microseconds (nsec is then a multiple of 1000).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Timestamp {
    pub sec: i64,
    pub nsec: u32,
}

impl Timestamp {
    pub const fn new(sec: i64, nsec: u32) -> Self {
        Timestamp { sec, nsec }
    }
    /// Seconds as a double.
    pub fn as_f64(self) -> f64 {
        self.sec as f64 + self.nsec as f64 / 1e9
    }
    /// Seconds as libpcp's `pmtimespecToReal`/`pmtimevalToReal` give them: the
    /// fraction `nsec / 1e9` and the sum are formed in x87 long double (64-bit
    /// significand, round to nearest even) and only the sum is rounded to a
    /// double. This differs from [`Timestamp::as_f64`] in the last bit now and
    /// then, which shows in rates that pmval prints to four digits.
    pub fn as_real_libpcp(self) -> f64 {
        const BILLION: u128 = 1_000_000_000;
        if self.nsec == 0 || !(0..1 << 34).contains(&self.sec) || self.nsec as u128 >= BILLION {
            return self.as_f64();
        }
        let n = self.nsec as u128;
        // scale s such that q = n * 2^s / 1e9 lies in [2^63, 2^64): q is the
        // long double quotient's significand (s is at most 93 for n >= 1)
        let mut s = 64u32;
        while (n << s) / BILLION < 1 << 63 {
            s += 1;
        }
        let q = round_half_even_div(n << s, BILLION);
        // sec + q * 2^-s, exactly, in units of 2^-s (sec < 2^34, s <= 93: fits)
        let sum = ((self.sec as u128) << s) + q;
        let rounded = round_to_bits(round_to_bits(sum, 64), 53);
        // at most 53 significant bits: the conversion and the scaling are exact
        rounded as f64 * 2f64.powi(-(s as i32))
    }
    /// `self - other` in seconds.
    pub fn sub_f64(self, other: Timestamp) -> f64 {
        (self.sec - other.sec) as f64 + (self.nsec as f64 - other.nsec as f64) / 1e9
    }
    /// Total nanoseconds (saturating), handy for comparisons and arithmetic.
    pub fn as_nanos(self) -> i128 {
        self.sec as i128 * 1_000_000_000 + self.nsec as i128
    }
    pub fn from_nanos(n: i128) -> Self {
        let sec = n.div_euclid(1_000_000_000);
        let nsec = n.rem_euclid(1_000_000_000) as u32;
        Timestamp {
            sec: sec.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
            nsec,
        }
    }
}

/// A metric descriptor (`pmDesc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Desc {
    pub pmid: PmId,
    /// `PM_TYPE_*` code (see [`vtype`]).
    pub vtype: i32,
    pub indom: InDom,
    /// `PM_SEM_*` code (see [`sem`]).
    pub sem: i32,
    pub units: Units,
}

/// `a / b` rounded to the nearest integer, ties to even.
fn round_half_even_div(a: u128, b: u128) -> u128 {
    let (q, r) = (a / b, a % b);
    match (2 * r).cmp(&b) {
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => q + (q & 1),
        std::cmp::Ordering::Less => q,
    }
}

/// `x` rounded to `bits` significant bits, ties to even (as an FPU rounds a
/// result to its significand's width).
fn round_to_bits(x: u128, bits: u32) -> u128 {
    let width = 128 - x.leading_zeros();
    if width <= bits {
        return x;
    }
    let drop = width - bits;
    round_half_even_div(x, 1 << drop) << drop
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_strings() {
        assert_eq!(PmId::new(60, 0, 32).to_string(), "60.0.32");
        assert_eq!(PmId::NULL.to_string(), "PM_ID_NULL");
        assert_eq!(InDom::new(29, 2).to_string(), "29.2");
        assert_eq!(InDom::new(29, 2).0, 0x7400002);
        assert_eq!(InDom::NULL.to_string(), "PM_INDOM_NULL");
    }

    /// Bit patterns printed by gcc on x86-64 for
    /// `double d = sec + ((long double)nsec / (long double)1000000000);`
    /// (libpcp's pmtimespecToReal). Each case is one where the all-double
    /// computation (`as_f64`) gives a different last bit; 300,000 random cases
    /// were checked the same way when this was written.
    #[test]
    fn real_seconds_as_libpcp_long_double() {
        let cases: [(i64, u32, u64); 8] = [
            (1192681557, 930776000, 0x41d1c5b8157b91d6),
            (1316562191, 994856000, 0x41d39e4943ffabb8),
            (4523607052, 57549000, 0x41f0da0c40c0ebb8),
            (14142451885, 493083000, 0x420a57a5856bf1d6),
            (1, 737273298, 0x3ffbcbdf15f1fc29),
            (3, 984198371, 0x400fdfa36541c595),
            (14, 514928361, 0x402d07a4b0ac8e47),
            (2, 498791000, 0x4003fd8622c45027),
        ];
        for (sec, nsec, bits) in cases {
            let t = Timestamp::new(sec, nsec);
            assert_eq!(t.as_real_libpcp().to_bits(), bits, "{sec}.{nsec:09}");
            assert_ne!(t.as_f64().to_bits(), bits, "{sec}.{nsec:09}");
        }
        // whole seconds and out-of-range inputs fall back to the plain sum
        assert_eq!(Timestamp::new(1_700_000_000, 0).as_real_libpcp(), 1.7e9);
        assert_eq!(Timestamp::new(-5, 500_000_000).as_real_libpcp(), -4.5);
    }

    #[test]
    fn units_strings() {
        assert_eq!(Units(0x10010000).to_string(), "Kbyte");
        assert_eq!(Units(0x01002000).to_string(), "millisec");
        assert_eq!(Units(0x0f103000).to_string(), "count / sec");
        assert_eq!(Units(0).to_string(), "");
        assert_eq!(Units(0x00000100).to_string(), "x 10");
        assert_eq!(Units(0x00000300).to_string(), "x 10^3");
        assert_eq!(Units(0x1f013000).to_string(), "Kbyte / sec");
        assert_eq!(Units(0x20000000).to_string(), "byte^2");
    }

    #[test]
    fn timestamp_arith() {
        let t = Timestamp::new(10, 500_000_000);
        assert_eq!(
            Timestamp::from_nanos(t.as_nanos() - 1_000_000_000),
            Timestamp::new(9, 500_000_000)
        );
        assert_eq!(Timestamp::from_nanos(-1), Timestamp::new(-1, 999_999_999));
        assert!((t.sub_f64(Timestamp::new(9, 0)) - 1.5).abs() < 1e-12);
    }
}

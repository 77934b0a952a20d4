//! The `[access]` section of a pmlogger configuration: which hosts may do which
//! control operations (`enquire`, `advisory`, `mandatory`, `all`, `all except ...`).
//!
//! ```text
//! [access]
//! disallow * : all;
//! allow localhost, 192.168.1.* : enquire, advisory;
//! ```
//!
//! The rules behave as PCP's host access lists (pmcd(1), libpcp 6.0.3):
//! - each statement *specifies* some operations and allows or denies them; the
//!   operations it does not name are left as they were;
//! - host patterns have a level: 0 for an address or a name (every address it
//!   resolves to), 1 to 3 for `a.b.c.*` .. `a.*`, 4 for `*` (8 for IPv6's `:*`);
//!   for a client, the matching patterns are applied from the most general to the
//!   most specific, so the most specific one decides each operation it names;
//! - a host no pattern matches may do everything, and so may every host when the
//!   section has no rules;
//! - `localhost` means this machine's own addresses (those of its host name),
//!   and a client connecting over loopback is taken to be those addresses;
//! - a client left with no operation at all is refused at connection time;
//! - clients on the unix socket match only the patterns `*`, `local:` and `unix:`
//!   (one pattern of level 1 for all of them).
//!
//! Two statements about the same pattern that disagree on an operation are a
//! "permission clash", an error in the configuration, as in PCP.

use crate::config::AccessStmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, ToSocketAddrs};

/// Operation bits (the values PCP's pmlogger uses).
pub const ADVISORY: u8 = 1;
pub const MANDATORY: u8 = 2;
pub const ENQUIRE: u8 = 4;
pub const ALL: u8 = ADVISORY | MANDATORY | ENQUIRE;

/// One host pattern with what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// Shown in error messages.
    spec: String,
    /// The unix-socket pattern (then `net` and `bits` mean nothing).
    unix: bool,
    /// Network address (already masked) and the number of leading bits that count.
    net: IpAddr,
    bits: u8,
    level: u8,
    /// Operations this pattern speaks about, and those of them it denies.
    spec_ops: u8,
    deny_ops: u8,
}

impl Entry {
    fn matches(&self, a: IpAddr) -> bool {
        match (self.net, a) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                let m = mask32(self.bits);
                u32::from(a) & m == u32::from(n) & m
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                let m = mask128(self.bits);
                u128::from(a) & m == u128::from(n) & m
            }
            _ => false,
        }
    }
}

fn mask32(bits: u8) -> u32 {
    if bits == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(bits.min(32)))
    }
}

fn mask128(bits: u8) -> u128 {
    if bits == 0 {
        0
    } else {
        u128::MAX << (128 - u32::from(bits.min(128)))
    }
}

/// The rules of an `[access]` section, ordered as libpcp orders them (by level,
/// most specific first; statements of one level in the order given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    hosts: Vec<Entry>,
    /// This machine's addresses (what `localhost` and loopback clients stand for).
    own: Vec<IpAddr>,
}

/// This machine's addresses: those its host name resolves to.
pub fn own_addresses() -> Vec<IpAddr> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into());
    resolve(&name).unwrap_or_else(|_| vec![IpAddr::V4(Ipv4Addr::LOCALHOST)])
}

fn resolve(name: &str) -> Result<Vec<IpAddr>, String> {
    let addrs = (name, 0)
        .to_socket_addrs()
        .map_err(|_| format!("__pmGetAddrInfo({name}), Unknown host"))?;
    let mut out: Vec<IpAddr> = Vec::new();
    for a in addrs {
        if !out.contains(&a.ip()) {
            out.push(a.ip());
        }
    }
    Ok(out)
}

/// The unix-socket pattern, as (net, bits, level) with net unused.
const UNIX: (IpAddr, u8, u8) = (IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0, 1);

/// The patterns one host name of a statement stands for: (unix, net, bits, level).
fn patterns(host: &str, own: &[IpAddr]) -> Result<Vec<(bool, IpAddr, u8, u8)>, String> {
    let ip = |v: Vec<(IpAddr, u8, u8)>| v.into_iter().map(|(n, b, l)| (false, n, b, l)).collect();
    if host == "*" {
        let mut v: Vec<_> = ip(vec![
            (IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0, 4),
            (IpAddr::V6(Ipv6Addr::UNSPECIFIED), 0, 8),
        ]);
        v.push((true, UNIX.0, UNIX.1, UNIX.2));
        return Ok(v);
    }
    if host.starts_with("unix:") {
        return Ok(vec![(true, UNIX.0, UNIX.1, UNIX.2)]);
    }
    if host.starts_with("local:") {
        let mut v = vec![(true, UNIX.0, UNIX.1, UNIX.2)];
        v.extend(patterns("localhost", own)?);
        return Ok(v);
    }
    if let Some(p) = host.find('*') {
        if p + 1 != host.len() {
            return Err(format!(
                "Wildcard in host pattern \"{host}\" is not at the end"
            ));
        }
        let head = &host[..p];
        if head.contains(':') {
            // IPv6 a:b:*: the given groups count
            let head = head.trim_end_matches(':');
            let groups: Vec<&str> = if head.is_empty() {
                Vec::new()
            } else {
                head.split(':').collect()
            };
            let mut v = [0u16; 8];
            for (i, g) in groups.iter().enumerate() {
                if i >= 7 {
                    return Err(format!("Too many colons in host pattern \"{host}\""));
                }
                v[i] = u16::from_str_radix(g, 16)
                    .map_err(|_| format!("Bad IPv6 address wildcard, {host}"))?;
            }
            let n = groups.len();
            return Ok(ip(vec![(
                IpAddr::V6(Ipv6Addr::from(v)),
                (n * 16) as u8,
                (8 - n) as u8,
            )]));
        }
        let head = head.trim_end_matches('.');
        let mut o = [0u8; 4];
        let mut n = 0;
        if !head.is_empty() {
            for part in head.split('.') {
                if n >= 3 {
                    return Err(format!("Too many dots in host pattern \"{host}\""));
                }
                o[n] = part
                    .parse()
                    .map_err(|_| format!("Bad IP address wildcard, {host}"))?;
                n += 1;
            }
        }
        return Ok(ip(vec![(
            IpAddr::V4(Ipv4Addr::from(o)),
            (n * 8) as u8,
            (4 - n) as u8,
        )]));
    }
    let addrs = if host.eq_ignore_ascii_case("localhost") {
        own.to_vec()
    } else if let Ok(a) = host.parse::<IpAddr>() {
        vec![a]
    } else {
        resolve(host)?
    };
    Ok(addrs
        .into_iter()
        .map(|a| match a {
            IpAddr::V4(_) => (false, a, 32, 0),
            IpAddr::V6(_) => (false, a, 128, 0),
        })
        .collect())
}

/// Why the section cannot be used: the reference's error notices, and the line
/// of the host they are about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessError {
    pub messages: Vec<String>,
    pub line: usize,
}

impl Access {
    /// The rules of the section's statements (as the configuration parser read
    /// them), with `localhost` standing for `own`. Statement by statement, host
    /// by host, as the reference adds them: the first host that cannot be added
    /// ends it, with every message its patterns gave.
    pub fn build_with(stmts: &[AccessStmt], own: Vec<IpAddr>) -> Result<Access, AccessError> {
        let mut acc = Access {
            hosts: Vec::new(),
            own,
        };
        for st in stmts {
            let named = st.ops.iter().fold(0, |m, op| {
                m | match op.as_str() {
                    "enquire" => ENQUIRE,
                    "advisory" => ADVISORY,
                    _ => MANDATORY,
                }
            });
            let (spec_ops, deny_ops) = match (st.all, st.ops.is_empty(), st.allow) {
                (true, true, true) => (ALL, 0),
                (true, true, false) => (ALL, ALL),
                (true, false, true) => (ALL, named),
                (true, false, false) => (ALL, ALL & !named),
                (false, _, true) => (named, 0),
                (false, _, false) => (named, named),
            };
            for (host, line) in &st.hosts {
                let fail = |messages| AccessError {
                    messages,
                    line: *line,
                };
                let pats = patterns(host, &acc.own).map_err(|m| fail(vec![m]))?;
                // `*` is three patterns, named in messages as the reference does
                let names = |k: usize| match (host.as_str(), k) {
                    ("*", 0) => ".*".to_string(),
                    ("*", 1) => ":*".to_string(),
                    ("*", _) => "unix:".to_string(),
                    _ => host.clone(),
                };
                let mut clashes = Vec::new();
                for (k, (unix, net, bits, level)) in pats.into_iter().enumerate() {
                    let e = Entry {
                        spec: names(k),
                        unix,
                        net,
                        bits,
                        level,
                        spec_ops,
                        deny_ops,
                    };
                    if let Err(m) = acc.add(e) {
                        clashes.push(m);
                    }
                }
                if !clashes.is_empty() {
                    return Err(fail(clashes));
                }
            }
        }
        Ok(acc)
    }

    /// As [`Access::build_with`], `localhost` being this machine's addresses.
    pub fn build(stmts: &[AccessStmt]) -> Result<Access, AccessError> {
        Access::build_with(stmts, own_addresses())
    }

    /// Adds a pattern: merged with an equal one (same address and level), else
    /// inserted after the patterns of its level.
    fn add(&mut self, e: Entry) -> Result<(), String> {
        if let Some(h) = self
            .hosts
            .iter_mut()
            .find(|h| h.unix == e.unix && h.net == e.net && h.level == e.level)
        {
            if h.spec_ops & e.spec_ops != 0
                && (h.spec_ops & h.deny_ops) ^ (e.spec_ops & e.deny_ops) != 0
            {
                return Err(format!(
                    "Permission clash for {} with earlier statement for {}",
                    e.spec, h.spec
                ));
            }
            h.spec_ops |= e.spec_ops;
            h.deny_ops |= e.spec_ops & e.deny_ops;
            return Ok(());
        }
        let at = self
            .hosts
            .iter()
            .position(|h| h.level > e.level)
            .unwrap_or(self.hosts.len());
        self.hosts.insert(at, e);
        Ok(())
    }

    /// The operations a client at `peer` may do (0: it is refused).
    pub fn allowed(&self, peer: IpAddr) -> u8 {
        if self.hosts.is_empty() {
            return ALL;
        }
        let peer = match peer {
            IpAddr::V6(a) => a.to_ipv4_mapped().map_or(peer, IpAddr::V4),
            a => a,
        };
        let ids: Vec<IpAddr> = if peer.is_loopback() {
            self.own.clone()
        } else {
            vec![peer]
        };
        let mut deny = 0u8;
        for id in ids {
            for h in self.hosts.iter().rev() {
                if !h.unix && h.matches(id) {
                    deny &= !h.spec_ops;
                    deny |= h.deny_ops;
                }
            }
            if deny == ALL {
                return 0;
            }
        }
        ALL & !deny
    }

    /// The operations a client on the unix socket may do (0: it is refused).
    pub fn allowed_unix(&self) -> u8 {
        let mut deny = 0u8;
        for h in self.hosts.iter().rev().filter(|h| h.unix) {
            deny &= !h.spec_ops;
            deny |= h.deny_ops;
        }
        ALL & !deny
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statements of an `[access]` section holding `s`.
    fn stmts(s: &str) -> Result<Vec<AccessStmt>, crate::config::ConfigError> {
        crate::config::parse(
            &format!("log mandatory on 1 sec {{ x }}\n[access]\n{s}\n"),
            1000,
        )
        .map(|c| c.access)
    }

    fn rules(s: &str) -> Access {
        let own = vec!["10.0.0.7".parse().expect("ip")];
        Access::build_with(&stmts(s).expect("parses"), own).expect("rules")
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn most_specific_pattern_decides_what_it_names() {
        let a = rules("disallow * : all; allow localhost : enquire, advisory;");
        // loopback clients are this machine's addresses
        assert_eq!(a.allowed(ip("127.0.0.1")), ENQUIRE | ADVISORY);
        assert_eq!(a.allowed(ip("10.0.0.7")), ENQUIRE | ADVISORY);
        assert_eq!(a.allowed(ip("10.1.2.3")), 0);
        // an operation a statement does not name is left alone
        let b = rules("allow localhost : enquire, advisory;");
        assert_eq!(b.allowed(ip("127.0.0.1")), ALL);
        let c = rules("allow 10.1.* : all except mandatory; disallow 10.* : enquire;");
        assert_eq!(c.allowed(ip("10.1.2.3")), ENQUIRE | ADVISORY);
        assert_eq!(c.allowed(ip("10.2.2.3")), MANDATORY | ADVISORY);
        // no rule for a host, or no rules: everything
        assert_eq!(c.allowed(ip("192.168.1.1")), ALL);
        assert_eq!(Access::default().allowed(ip("10.1.2.3")), ALL);
        assert_eq!(
            rules("disallow 10.1.2.3 : all except enquire;").allowed(ip("10.1.2.3")),
            ENQUIRE
        );
    }

    /// pmlogconf's section: patterns with colons in them.
    #[test]
    fn pmlogconf_patterns() {
        let a = rules("disallow .* : all; disallow :* : all; allow local:* : enquire;");
        assert_eq!(a.allowed(ip("10.1.2.3")), 0);
        assert_eq!(a.allowed(ip("fe80::1")), 0);
        // unix-socket clients: only `local:*` speaks of them, and only of enquire
        assert_eq!(a.allowed_unix(), ALL);
        let b = rules("allow fe80::1 : mandatory; disallow * : all;");
        assert_eq!(b.allowed(ip("fe80::1")), MANDATORY);
    }

    #[test]
    fn errors() {
        let own = vec![ip("10.0.0.7")];
        // the grammar's: on the line of the token that does not fit
        for (bad, line, what) in [
            ("permit x : all;", 3, "syntax error"),
            ("allow * : everything;", 3, "syntax error"),
            ("allow * all;", 3, "syntax error"),
            ("allow * : all, except enquire;", 3, "syntax error"),
            ("allow * : all", 4, "syntax error"),
            ("", 4, "syntax error"),
            ("allow 1.2.3.4.5 : all;", 3, "Unexpected character '.'"),
            (
                "allow * : enquire;\nallow fo^o : all;",
                4,
                "Unexpected character '^'",
            ),
        ] {
            let e = stmts(bad).expect_err(bad);
            assert_eq!((e.line, e.message.as_str()), (line, what), "{bad}");
        }
        // the rules': the messages of the host's patterns, and its line
        let e = Access::build_with(
            &stmts("allow * : enquire;\n\ndisallow * : enquire;").expect("parses"),
            own.clone(),
        )
        .expect_err("clash");
        assert_eq!(e.line, 5);
        assert_eq!(
            e.messages,
            [
                "Permission clash for .* with earlier statement for .*",
                "Permission clash for :* with earlier statement for :*",
                "Permission clash for unix: with earlier statement for unix:",
            ]
        );
        let e = Access::build_with(
            &stmts("allow * : enquire;\nallow bogus..host : all;").expect("parses"),
            own.clone(),
        )
        .expect_err("no such host");
        assert_eq!(e.messages, ["__pmGetAddrInfo(bogus..host), Unknown host"]);
        assert_eq!(e.line, 4);
        let e = stmts("allow 10.*.1 : all;").expect_err("lexer");
        assert_eq!(e.message, "Unexpected character '.'");
        let e = Access::build_with(
            &stmts("allow 10.1.2.3 : all; disallow 10.1.2.3 : enquire;").expect("parses"),
            own.clone(),
        );
        assert_eq!(e.expect_err("clash").line, 3);
        // agreeing statements about one host merge
        let a = rules("allow 10.1.2.3 : enquire; disallow 10.1.2.3 : mandatory;");
        assert_eq!(a.allowed(ip("10.1.2.3")), ENQUIRE | ADVISORY);
    }
}

//! GNU `getopt_long` semantics, which the PCP tools use through `pmGetOptions`: option
//! clustering (`-xxx`, `-Sfoo`), arguments permuted (options may follow operands),
//! `--` ends options, unique prefixes of long options, and glibc's exact messages.
//! (clap cannot reproduce these messages, and scripts match on them.)

/// A long option: name, whether it takes an argument, and the short option it stands for.
#[derive(Debug, Clone, Copy)]
pub struct LongOpt {
    pub name: &'static str,
    pub has_arg: bool,
    pub short: char,
}

/// Result of parsing: options in order (short letter, optional argument) and operands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub opts: Vec<(char, Option<String>)>,
    pub operands: Vec<String>,
}

/// Parses `args` (without the program name). On error returns glibc's messages
/// (without the `prog: ` prefix), a line each: as glibc, parsing goes on after a
/// mistake, so that every mistake is reported.
pub fn getopt(args: &[String], short: &str, long: &[LongOpt]) -> Result<Parsed, String> {
    let (parsed, errors) = getopt_all(args, short, long);
    match errors.is_empty() {
        true => Ok(parsed),
        false => Err(errors.join("\n")),
    }
}

/// [`getopt`] for a tool that goes on after glibc's messages (pmlc checks its
/// operand even then): what was parsed, and the messages.
pub fn getopt_all(args: &[String], short: &str, long: &[LongOpt]) -> (Parsed, Vec<String>) {
    let takes_arg = |c: char| -> Option<bool> {
        let i = short.find(c)?;
        if c == ':' {
            return None;
        }
        Some(short[i + c.len_utf8()..].starts_with(':'))
    };
    let mut out = Parsed::default();
    let mut errors: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            out.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, val) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let exact = long.iter().find(|l| l.name == name);
            let opt = match exact {
                Some(l) => *l,
                None => {
                    let cands: Vec<&LongOpt> =
                        long.iter().filter(|l| l.name.starts_with(name)).collect();
                    match cands.len() {
                        0 => {
                            errors.push(format!("unrecognized option '--{name}'"));
                            continue;
                        }
                        1 => *cands[0],
                        _ => {
                            let list: Vec<String> =
                                cands.iter().map(|l| format!("'--{}'", l.name)).collect();
                            errors.push(format!(
                                "option '--{name}' is ambiguous; possibilities: {}",
                                list.join(" ")
                            ));
                            continue;
                        }
                    }
                }
            };
            if opt.has_arg {
                let v = match val {
                    Some(v) => v,
                    None => {
                        if i < args.len() {
                            i += 1;
                            args[i - 1].clone()
                        } else {
                            errors.push(format!("option '--{}' requires an argument", opt.name));
                            continue;
                        }
                    }
                };
                out.opts.push((opt.short, Some(v)));
            } else {
                if val.is_some() {
                    errors.push(format!("option '--{}' doesn't allow an argument", opt.name));
                    continue;
                }
                out.opts.push((opt.short, None));
            }
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let chars: Vec<char> = a[1..].chars().collect();
            let mut k = 0;
            while k < chars.len() {
                let c = chars[k];
                k += 1;
                match takes_arg(c) {
                    None => errors.push(format!("invalid option -- '{c}'")),
                    Some(false) => out.opts.push((c, None)),
                    Some(true) => {
                        let rest: String = chars[k..].iter().collect();
                        let v = if !rest.is_empty() {
                            rest
                        } else if i < args.len() {
                            i += 1;
                            args[i - 1].clone()
                        } else {
                            errors.push(format!("option requires an argument -- '{c}'"));
                            break;
                        };
                        out.opts.push((c, Some(v)));
                        break;
                    }
                }
            }
            continue;
        }
        out.operands.push(a.clone());
    }
    (out, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &[LongOpt] = &[
        LongOpt {
            name: "all",
            has_arg: false,
            short: 'a',
        },
        LongOpt {
            name: "start",
            has_arg: true,
            short: 'S',
        },
        LongOpt {
            name: "sizes",
            has_arg: false,
            short: 's',
        },
    ];

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn clusters_permutes_and_longs() {
        let p = getopt(
            &v(&["-axx", "arch", "-S+1", "--start=+2", "--al", "m"]),
            "axS:s",
            LONG,
        )
        .unwrap();
        assert_eq!(p.operands, ["arch", "m"]);
        assert_eq!(
            p.opts,
            vec![
                ('a', None),
                ('x', None),
                ('x', None),
                ('S', Some("+1".into())),
                ('S', Some("+2".into())),
                ('a', None)
            ]
        );
    }

    #[test]
    fn glibc_messages() {
        assert_eq!(
            getopt(&v(&["-V"]), "a", LONG).unwrap_err(),
            "invalid option -- 'V'"
        );
        assert_eq!(
            getopt(&v(&["-S"]), "S:", LONG).unwrap_err(),
            "option requires an argument -- 'S'"
        );
        assert_eq!(
            getopt(&v(&["--start"]), "S:", LONG).unwrap_err(),
            "option '--start' requires an argument"
        );
        assert_eq!(
            getopt(&v(&["--bogus"]), "a", LONG).unwrap_err(),
            "unrecognized option '--bogus'"
        );
        assert_eq!(
            getopt(&v(&["--all=3"]), "a", LONG).unwrap_err(),
            "option '--all' doesn't allow an argument"
        );
        assert_eq!(
            getopt(&v(&["--s"]), "a", LONG).unwrap_err(),
            "option '--s' is ambiguous; possibilities: '--start' '--sizes'"
        );
    }
}

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
    let mut out = Parsed::default();
    let mut errors: Vec<String> = Vec::new();
    // the arguments not yet read (an option's argument may be the next one)
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        if a == "--" {
            out.operands.extend(rest.cloned());
            break;
        }
        let found = if let Some(body) = a.strip_prefix("--") {
            long_option(body, long, &mut rest)
        } else if a.len() > 1 && a.starts_with('-') {
            short_options(&a[1..], short, &mut rest)
        } else {
            out.operands.push(a.clone());
            continue;
        };
        match found {
            Ok(opts) => out.opts.extend(opts),
            Err((opts, e)) => {
                out.opts.extend(opts);
                errors.extend(e);
            }
        }
    }
    (out, errors)
}

/// What one argument gave: its options, or those before a mistake with glibc's
/// messages.
type Found = Result<Vec<(char, Option<String>)>, (Vec<(char, Option<String>)>, Vec<String>)>;

/// A long option (`body` after `--`), its exact name or a unique prefix, with
/// its argument after `=` or taken from `rest`.
fn long_option(body: &str, long: &[LongOpt], rest: &mut std::slice::Iter<'_, String>) -> Found {
    let fail = |m: String| Err((Vec::new(), vec![m]));
    let (name, val) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (body, None),
    };
    let opt = match long.iter().find(|l| l.name == name) {
        Some(l) => *l,
        None => {
            let cands: Vec<&LongOpt> = long.iter().filter(|l| l.name.starts_with(name)).collect();
            match cands.len() {
                // glibc names the whole argument, its `=value` included
                0 => return fail(format!("unrecognized option '--{body}'")),
                1 => *cands[0],
                _ => {
                    let list: Vec<String> =
                        cands.iter().map(|l| format!("'--{}'", l.name)).collect();
                    return fail(format!(
                        "option '--{body}' is ambiguous; possibilities: {}",
                        list.join(" ")
                    ));
                }
            }
        }
    };
    match (opt.has_arg, val) {
        (true, Some(v)) => Ok(vec![(opt.short, Some(v))]),
        (true, None) => match rest.next() {
            Some(v) => Ok(vec![(opt.short, Some(v.clone()))]),
            None => fail(format!("option '--{}' requires an argument", opt.name)),
        },
        (false, Some(_)) => fail(format!("option '--{}' doesn't allow an argument", opt.name)),
        (false, None) => Ok(vec![(opt.short, None)]),
    }
}

/// A cluster of short options (`cluster` after `-`): each on its own, the last
/// one that takes an argument with the rest of the cluster or the next argument.
/// An unknown one is reported and the cluster goes on.
fn short_options(cluster: &str, short: &str, rest: &mut std::slice::Iter<'_, String>) -> Found {
    let takes_arg = |c: char| -> Option<bool> {
        let i = short.find(c)?;
        if c == ':' {
            return None;
        }
        Some(short[i + c.len_utf8()..].starts_with(':'))
    };
    let (mut opts, mut errors) = (Vec::new(), Vec::new());
    for (at, c) in cluster.char_indices() {
        match takes_arg(c) {
            None => errors.push(format!("invalid option -- '{c}'")),
            Some(false) => opts.push((c, None)),
            Some(true) => {
                let attached = &cluster[at + c.len_utf8()..];
                if !attached.is_empty() {
                    opts.push((c, Some(attached.to_string())));
                } else if let Some(v) = rest.next() {
                    opts.push((c, Some(v.clone())));
                } else {
                    errors.push(format!("option requires an argument -- '{c}'"));
                }
                break;
            }
        }
    }
    match errors.is_empty() {
        true => Ok(opts),
        false => Err((opts, errors)),
    }
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
            getopt(&v(&["--bogus=1"]), "a", LONG).unwrap_err(),
            "unrecognized option '--bogus=1'"
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

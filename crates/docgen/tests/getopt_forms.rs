//! Every option form the PCP tools accept, parsed three ways: by glibc's own
//! `getopt_long` (the reference: libpcp's `pmGetOptions` calls it), by our
//! `cli_common::getopt`, and by clap configured as close to getopt as it goes
//! (`infer_long_args`, operands anywhere). Ours must agree with glibc on every
//! form, messages included; the forms where clap does not are printed, and they
//! are why the tools parse with our getopt and use clap only for the man pages
//! and completions (`cli_common::spec`).
//!
//! One test in this file: it points the process's standard error at a file
//! while glibc writes its messages.
#![allow(unsafe_code)]

use cli_common::spec::Tool;
use std::ffi::{c_char, c_int, CString};
use std::io::{Read, Seek};

#[repr(C)]
struct COption {
    name: *const c_char,
    has_arg: c_int,
    flag: *mut c_int,
    val: c_int,
}

extern "C" {
    fn getopt_long(
        argc: c_int,
        argv: *const *mut c_char,
        optstring: *const c_char,
        longopts: *const COption,
        longindex: *mut c_int,
    ) -> c_int;
    static mut optarg: *mut c_char;
    static mut optind: c_int;
    static mut opterr: c_int;
    fn dup(fd: c_int) -> c_int;
    fn dup2(from: c_int, to: c_int) -> c_int;
    fn close(fd: c_int) -> c_int;
}

/// A parse: the options in order with their arguments and the operands, or what
/// is said of the mistakes (`prog: message` lines).
type Outcome = Result<(Vec<(char, Option<String>)>, Vec<String>), String>;

/// glibc's parse of `args`, with its messages: as glibc, on after a mistake.
fn glibc(tool: &Tool, args: &[&str]) -> Outcome {
    let short = CString::new(tool.short()).expect("an option string");
    let names: Vec<CString> = tool
        .long()
        .iter()
        .map(|l| CString::new(l.name).expect("a name"))
        .collect();
    let mut longopts: Vec<COption> = tool
        .long()
        .iter()
        .zip(&names)
        .map(|(l, n)| COption {
            name: n.as_ptr(),
            has_arg: l.has_arg as c_int,
            flag: std::ptr::null_mut(),
            val: l.short as c_int,
        })
        .collect();
    longopts.push(COption {
        name: std::ptr::null(),
        has_arg: 0,
        flag: std::ptr::null_mut(),
        val: 0,
    });
    let owned: Vec<CString> = std::iter::once(tool.name)
        .chain(args.iter().copied())
        .map(|a| CString::new(a).expect("an argument"))
        .collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    let mut errfile = tempfile::tempfile().expect("tempfile");
    let mut opts = Vec::new();
    let mut failed = false;
    // SAFETY: argv, the option string and the table outlive the calls and are
    // NUL-terminated as getopt_long wants; optind = 0 makes glibc start afresh;
    // standard error is pointed back at what it was before returning.
    unsafe {
        use std::os::fd::AsRawFd;
        let saved = dup(2);
        dup2(errfile.as_raw_fd(), 2);
        optind = 0;
        opterr = 1;
        loop {
            let c = getopt_long(
                owned.len() as c_int,
                argv.as_ptr(),
                short.as_ptr(),
                longopts.as_ptr(),
                std::ptr::null_mut(),
            );
            if c == -1 {
                break;
            }
            if c == '?' as c_int || c == ':' as c_int {
                failed = true;
                continue;
            }
            let arg = (!optarg.is_null()).then(|| {
                std::ffi::CStr::from_ptr(optarg)
                    .to_string_lossy()
                    .into_owned()
            });
            opts.push((char::from_u32(c as u32).unwrap_or('\0'), arg));
        }
        dup2(saved, 2);
        close(saved);
        let operands = argv[optind as usize..owned.len()]
            .iter()
            .map(|p| std::ffi::CStr::from_ptr(*p).to_string_lossy().into_owned())
            .collect();
        if !failed {
            return Ok((opts, operands));
        }
    }
    let mut text = String::new();
    errfile.rewind().expect("rewind");
    errfile.read_to_string(&mut text).expect("messages");
    Err(text.trim_end().to_string())
}

fn ours(tool: &Tool, args: &[&str]) -> Outcome {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tool.getopt(&args)
        .map(|p| (p.opts, p.operands))
        .map_err(|m| format!("{}: {m}", tool.name))
}

/// clap's parse, with the tool's options (hidden ones too) and operands anywhere.
fn clap(tool: &Tool, args: &[&str]) -> Outcome {
    let mut cmd = clap::Command::new(tool.name)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .infer_long_args(true)
        .arg(
            clap::Arg::new("operands")
                .num_args(0..)
                .action(clap::ArgAction::Append),
        );
    let mut ids = Vec::new();
    for o in tool.opts() {
        let id = format!("opt-{}", o.key as u32);
        let mut a = clap::Arg::new(id.clone());
        if o.is_short() {
            a = a.short(o.key);
        }
        if let Some(l) = o.long {
            a = a.long(l);
        }
        a = match o.arg {
            Some(_) => a
                .num_args(1)
                .allow_hyphen_values(true)
                .action(clap::ArgAction::Append),
            None => a.num_args(0).action(clap::ArgAction::Count),
        };
        cmd = cmd.arg(a);
        ids.push((id, o.key, o.arg.is_some()));
    }
    let m = cmd
        .try_get_matches_from(std::iter::once(tool.name).chain(args.iter().copied()))
        .map_err(|e| format!("{}: {}", tool.name, render(tool, &e)))?;
    let mut opts = Vec::new();
    for (id, key, takes) in &ids {
        if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        let Some(at) = m.indices_of(id) else { continue };
        let at: Vec<usize> = at.collect();
        if *takes {
            let vals: Vec<String> = m.get_many::<String>(id).expect("values").cloned().collect();
            opts.extend(at.into_iter().zip(vals).map(|(i, v)| (i, *key, Some(v))));
        } else {
            // a flag given n times in one cluster has one index
            let n = usize::from(m.get_count(id));
            let last = at.last().copied().unwrap_or_default();
            let at = at.into_iter().chain(std::iter::repeat(last)).take(n);
            opts.extend(at.map(|i| (i, *key, None)));
        }
    }
    opts.sort_by_key(|(i, _, _)| *i);
    let operands = m
        .get_many::<String>("operands")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    Ok((opts.into_iter().map(|(_, k, v)| (k, v)).collect(), operands))
}

/// glibc's message made from what clap's error says, as well as it can be: the
/// kind of mistake and the argument clap names, with the tool's table for what
/// clap leaves out (the possibilities of an ambiguous abbreviation).
fn render(tool: &Tool, e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    // "--config <opt-99>" or "--all...": the option as clap shows it
    let shown = arg.split([' ', '.']).next().unwrap_or_default().to_string();
    match e.kind() {
        ErrorKind::UnknownArgument => match shown.strip_prefix("--") {
            Some(name) => {
                let cands: Vec<String> = tool
                    .long()
                    .iter()
                    .filter(|l| l.name.starts_with(name))
                    .map(|l| format!("'--{}'", l.name))
                    .collect();
                if cands.len() > 1 {
                    format!(
                        "option '--{name}' is ambiguous; possibilities: {}",
                        cands.join(" ")
                    )
                } else {
                    format!("unrecognized option '--{name}'")
                }
            }
            None => format!("invalid option -- '{}'", shown.trim_start_matches('-')),
        },
        // clap names the option by its long name whichever form was given
        ErrorKind::InvalidValue => match shown.strip_prefix("--") {
            Some(name) => format!("option '--{name}' requires an argument"),
            None => format!(
                "option requires an argument -- '{}'",
                shown.trim_start_matches('-')
            ),
        },
        ErrorKind::TooManyValues => format!("option '{shown}' doesn't allow an argument"),
        k => format!("{k:?}"),
    }
}

/// The forms, made from the tool's own options: clustering, attached and
/// separate arguments, a value that starts with `-`, operands before options,
/// `--`, long options with `=` and without, unique and ambiguous abbreviations,
/// and each kind of mistake.
fn forms(tool: &Tool) -> Vec<(String, Vec<String>)> {
    let opts: Vec<_> = tool.opts().collect();
    let flag = opts
        .iter()
        .find(|o| o.is_short() && o.arg.is_none())
        .map(|o| o.key);
    let with = opts
        .iter()
        .find(|o| o.is_short() && o.arg.is_some())
        .map(|o| o.key);
    let long_with = opts.iter().find_map(|o| o.long.filter(|_| o.arg.is_some()));
    let long_flag = opts.iter().find_map(|o| o.long.filter(|_| o.arg.is_none()));
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut f: Vec<(&str, Vec<String>)> = vec![
        ("operands only", s(&["one", "two"])),
        ("end of options", s(&["--", "-x", "--y"])),
        ("unknown short", s(&["-\u{7e}"])),
        ("unknown long", s(&["--no-such-option"])),
        ("a lone dash is an operand", s(&["-"])),
        ("two mistakes", s(&["-\u{7e}", "--no-such-option"])),
    ];
    if let Some(a) = flag {
        f.push(("flag", s(&[&format!("-{a}"), "op"])));
        f.push(("operand first", s(&["op", &format!("-{a}")])));
        f.push(("flag twice, clustered", s(&[&format!("-{a}{a}")])));
        f.push(("after --", s(&["--", &format!("-{a}")])));
        f.push((
            "a mistake inside a cluster",
            s(&[&format!("-{a}\u{7e}{a}"), "op"]),
        ));
    }
    if let Some(b) = with {
        f.push(("separate argument", s(&[&format!("-{b}"), "val", "op"])));
        f.push(("attached argument", s(&[&format!("-{b}val")])));
        f.push(("argument starting with -", s(&[&format!("-{b}"), "-1h"])));
        f.push(("missing argument", s(&[&format!("-{b}")])));
        if let Some(a) = flag {
            f.push((
                "cluster ending in an argument",
                s(&[&format!("-{a}{b}"), "val"]),
            ));
            f.push(("cluster with it attached", s(&[&format!("-{a}{b}val")])));
        }
    }
    if let Some(l) = long_with {
        f.push(("long with =", s(&[&format!("--{l}=val")])));
        f.push(("long, separate", s(&[&format!("--{l}"), "val"])));
        f.push(("long, value with -", s(&[&format!("--{l}"), "-1h"])));
        f.push(("long, missing argument", s(&[&format!("--{l}")])));
        let unique = (1..l.len())
            .map(|n| &l[..n])
            .find(|p| tool.long().iter().filter(|o| o.name.starts_with(p)).count() == 1);
        if let Some(p) = unique.filter(|p| *p != l) {
            f.push(("unique abbreviation", s(&[&format!("--{p}=val")])));
        }
    }
    if let Some(l) = long_flag {
        f.push(("long flag", s(&[&format!("--{l}")])));
        f.push(("long flag given a value", s(&[&format!("--{l}=x")])));
    }
    let longs = tool.long();
    let ambiguous = longs
        .iter()
        .flat_map(|a| (1..a.name.len()).map(move |n| &a.name[..n]))
        .find(|p| {
            longs.iter().filter(|o| o.name.starts_with(p)).count() > 1
                && !longs.iter().any(|o| o.name == *p)
        });
    if let Some(p) = ambiguous {
        f.push(("ambiguous abbreviation", s(&[&format!("--{p}")])));
    }
    f.into_iter().map(|(n, a)| (n.to_string(), a)).collect()
}

#[test]
fn our_getopt_is_glibcs_and_clap_is_not() {
    let tools = [
        &pmdumplog::TOOL,
        &pmval::TOOL,
        &pmlogextract::TOOL,
        &pmlogcheck::TOOL,
        &pmlogger::TOOL,
        &pmlc::TOOL,
    ];
    let (mut cases, mut clap_differs) = (0, Vec::new());
    for tool in tools {
        for (form, args) in forms(tool) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let want = glibc(tool, &args);
            assert_eq!(ours(tool, &args), want, "{} {form}: {args:?}", tool.name);
            cases += 1;
            let c = clap(tool, &args);
            // clap's messages rendered as glibc's (`render`)
            let same = c == want;
            if !same {
                clap_differs.push(format!(
                    "{} {form} {args:?}: glibc {want:?}, clap {c:?}",
                    tool.name
                ));
            }
        }
    }
    println!("{cases} forms: our getopt agrees with glibc on all, messages included");
    println!("clap differs on {}:", clap_differs.len());
    for d in &clap_differs {
        println!("  {d}");
    }
    assert!(cases > 80, "{cases} forms");
    assert!(
        !clap_differs.is_empty(),
        "clap now parses every form as glibc does: the tools could parse with it"
    );
}

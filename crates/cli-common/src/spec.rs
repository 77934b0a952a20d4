//! One definition of a tool's options, from which everything else about them comes:
//! the getopt tables that parse them ([`Tool::short`], [`Tool::long`]), PCP's usage
//! text ([`Tool::usage`]), the list of options that are ours ([`Tool::ours`], after
//! the usage on `--help`), and a clap [`clap::Command`] ([`Tool::command`]) from which
//! the man page and shell completions are made.
//!
//! The parser stays [`crate::getopt`], not clap's: PCP's tools take their options
//! through glibc's `getopt_long`, and clap differs from it where scripts notice
//! (glibc's messages word for word; an argument that looks like an option, as in
//! `-S -1h`, taken as the argument; a long option abbreviated to any unique prefix,
//! with glibc's list of possibilities when it is not unique). The tests of
//! `getopt` pin those forms down.
//!
//! The standard options of PCP's `pmGetOptions` (`PMOPT_START` and the rest) are
//! here once, with PCP's help text, as the constants of [`std_opts`].

use std::fmt::Write as _;

use crate::getopt::LongOpt;

/// Who defines an option, which decides where it is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// PCP's: parsed, and listed in PCP's usage text.
    Pcp,
    /// PCP's but left out of its usage text (as `-D`): parsed only.
    Hidden,
    /// This project's, beyond PCP: long only, listed after the usage on `--help`.
    Ours,
    /// A later PCP's, not in PCP 6.0.3's: its short letter is parsed, and it is
    /// listed with ours after the usage (6.0.3's usage text stays as it was).
    Later,
}

/// One option: the letter (or private character) the parser reports it as, its long
/// name, the name of its argument, its help line and where it comes from.
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// The short option, or for a long-only option a character no short option uses
    /// (any character that is not ASCII graphic is never offered as a short option).
    pub key: char,
    pub long: Option<&'static str>,
    /// The argument's name in the usage (`TIME`), when the option takes one.
    pub arg: Option<&'static str>,
    pub help: &'static str,
    pub origin: Origin,
}

impl Opt {
    /// `-k, --long`.
    pub const fn flag(key: char, long: &'static str, help: &'static str) -> Opt {
        Opt {
            key,
            long: Some(long),
            arg: None,
            help,
            origin: Origin::Pcp,
        }
    }

    /// `-k ARG, --long=ARG`.
    pub const fn arg(key: char, long: &'static str, arg: &'static str, help: &'static str) -> Opt {
        Opt {
            key,
            long: Some(long),
            arg: Some(arg),
            help,
            origin: Origin::Pcp,
        }
    }

    /// `-k`, without a long name.
    pub const fn short(key: char, help: &'static str) -> Opt {
        Opt {
            key,
            long: None,
            arg: None,
            help,
            origin: Origin::Pcp,
        }
    }

    /// `-k ARG`, without a long name.
    pub const fn short_arg(key: char, arg: &'static str, help: &'static str) -> Opt {
        Opt {
            key,
            long: None,
            arg: Some(arg),
            help,
            origin: Origin::Pcp,
        }
    }

    /// Left out of the usage text.
    pub const fn hidden(self) -> Opt {
        Opt {
            origin: Origin::Hidden,
            ..self
        }
    }

    /// A later PCP's option (PCP 7's): short and long as that PCP has them,
    /// listed with ours.
    pub const fn later(self) -> Opt {
        Opt {
            origin: Origin::Later,
            ..self
        }
    }

    /// This project's option: its key is never a short option.
    pub const fn ours(self) -> Opt {
        Opt {
            origin: Origin::Ours,
            ..self
        }
    }

    /// Whether `-key` is a short option.
    pub fn is_short(&self) -> bool {
        self.origin != Origin::Ours && self.key.is_ascii_graphic()
    }

    /// The option as the usage names it: `-S TIME, --start=TIME`, `--container=NAME`,
    /// `-L`.
    pub fn synopsis(&self) -> String {
        let mut s = String::new();
        if self.is_short() {
            s.push('-');
            s.push(self.key);
            if let Some(a) = self.arg {
                s.push(' ');
                s.push_str(a);
            }
        }
        if let Some(l) = self.long {
            if !s.is_empty() {
                s.push_str(", ");
            }
            s.push_str("--");
            s.push_str(l);
            if let Some(a) = self.arg {
                s.push('=');
                s.push_str(a);
            }
        }
        s
    }
}

/// A heading of the usage text (`Options:`, `General options:`) and its options.
#[derive(Debug, Clone, Copy)]
///
/// A section without options is a paragraph of text (its title), as PCP's
/// `PMAPI_OPTIONS_TEXT` lines after the options.
pub struct Section {
    pub title: &'static str,
    pub opts: &'static [Opt],
}

/// A tool's command line: its name, the operands after `[options]`, what it is for
/// (the man page's NAME line), its options by section, and text that follows the
/// list of our options on `--help` and in the man page.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    /// The usage line after `Usage: NAME `: `[options] archive`.
    pub synopsis: &'static str,
    pub purpose: &'static str,
    pub sections: &'static [Section],
    pub notes: &'static str,
}

impl Tool {
    /// Every option, in the order of the definition.
    pub fn opts(&self) -> impl Iterator<Item = &'static Opt> {
        self.sections.iter().flat_map(|s| s.opts.iter())
    }

    /// getopt's option string (`aD:d...`).
    pub fn short(&self) -> String {
        let mut s = String::new();
        for o in self.opts().filter(|o| o.is_short()) {
            s.push(o.key);
            if o.arg.is_some() {
                s.push(':');
            }
        }
        s
    }

    /// getopt_long's table, in the order of the definition (glibc lists the
    /// possibilities of an ambiguous abbreviation in this order).
    pub fn long(&self) -> Vec<LongOpt> {
        self.opts()
            .filter_map(|o| {
                Some(LongOpt {
                    name: o.long?,
                    has_arg: o.arg.is_some(),
                    short: o.key,
                })
            })
            .collect()
    }

    /// Parses `args` with glibc's rules. The error is glibc's messages, the lines
    /// after the first with `NAME: ` before them (the caller prints the first's).
    pub fn getopt(&self, args: &[String]) -> Result<crate::getopt::Parsed, String> {
        crate::getopt::getopt(args, &self.short(), &self.long())
            .map_err(|m| m.replace('\n', &format!("\n{}: ", self.name)))
    }

    /// Parses `args` with glibc's rules, going on after mistakes: what was
    /// parsed, and glibc's messages (without `NAME: `).
    pub fn getopt_all(&self, args: &[String]) -> (crate::getopt::Parsed, Vec<String>) {
        crate::getopt::getopt_all(args, &self.short(), &self.long())
    }

    /// PCP's usage text, as `pmUsageMessage` lays it out: an option's synopsis in a
    /// column of 24, or on a line of its own when it is wider than 21.
    pub fn usage(&self) -> String {
        let mut s = format!("Usage: {} {}\n", self.name, self.synopsis);
        for sec in self.sections {
            let shown: Vec<&Opt> = sec
                .opts
                .iter()
                .filter(|o| o.origin == Origin::Pcp)
                .collect();
            if sec.opts.is_empty() {
                let _ = write!(s, "\n{}\n", sec.title);
                continue;
            }
            if shown.is_empty() {
                continue;
            }
            let _ = write!(s, "\n{}:\n", sec.title);
            for o in shown {
                let left = format!("  {}", o.synopsis());
                if left.len() <= 23 {
                    let _ = writeln!(s, "{left:<24}{}", o.help);
                } else {
                    let _ = writeln!(s, "{left}\n{:24}{}", "", o.help);
                }
            }
        }
        s
    }

    /// The options that are ours, listed after the usage on `--help` (empty when
    /// there are none and no notes).
    pub fn ours(&self) -> String {
        let ours: Vec<&Opt> = self
            .opts()
            .filter(|o| matches!(o.origin, Origin::Ours | Origin::Later))
            .collect();
        let mut s = String::new();
        if !ours.is_empty() {
            let _ = write!(
                s,
                "\nOptions of {} (not in PCP {}):\n",
                crate::about::PROJECT,
                crate::about::PCP_VERSION
            );
            for o in ours {
                let opt = o.synopsis();
                if opt.len() <= 20 {
                    let _ = writeln!(s, "  {opt:<20}  {}", o.help);
                } else {
                    let _ = writeln!(s, "  {opt}\n  {:<20}  {}", "", o.help);
                }
            }
        }
        s.push_str(self.notes);
        s
    }

    /// What `--help` prints: the usage, then what is ours.
    pub fn help(&self) -> String {
        self.usage() + &self.ours()
    }

    /// The options as a clap command, for the man page and completions (headings
    /// kept; hidden options left out).
    pub fn command(&self) -> clap::Command {
        let mut cmd = clap::Command::new(self.name)
            .about(self.purpose)
            .override_usage(format!("{} {}", self.name, self.synopsis))
            .disable_help_flag(true)
            .disable_version_flag(true)
            .after_long_help(self.notes.trim().to_string());
        for sec in self.sections {
            for o in sec.opts.iter().filter(|o| o.origin != Origin::Hidden) {
                cmd = cmd.arg(arg_of(o, sec.title));
            }
        }
        cmd
    }
}

/// One option as a clap argument.
fn arg_of(o: &Opt, heading: &'static str) -> clap::Arg {
    let id = o.long.map_or_else(|| o.key.to_string(), str::to_string);
    let mut a = clap::Arg::new(id)
        .help(o.help)
        .help_heading(match o.origin {
            Origin::Ours => "Options beyond PCP's",
            Origin::Later => "Options of PCP 7",
            _ => heading,
        });
    if o.is_short() {
        a = a.short(o.key);
    }
    if let Some(l) = o.long {
        a = a.long(l);
    }
    match o.arg {
        Some(v) => a
            .value_name(v)
            .num_args(1)
            .action(clap::ArgAction::Append)
            .value_hint(hint_of(v)),
        None => a.num_args(0).action(clap::ArgAction::Count),
    }
}

/// What completion offers for an argument, from its name in the usage.
fn hint_of(arg: &str) -> clap::ValueHint {
    match arg {
        "FILE" | "ARCHIVE" => clap::ValueHint::FilePath,
        "HOST" => clap::ValueHint::Hostname,
        "USER" => clap::ValueHint::Username,
        _ => clap::ValueHint::Other,
    }
}

/// PCP's standard options (libpcp's `PMOPT_*`), with its help text.
pub mod std_opts {
    use super::Opt;

    pub const ALIGN: Opt = Opt::arg(
        'A',
        "align",
        "TIME",
        "align sample times on natural boundaries",
    );
    pub const ARCHIVE: Opt = Opt::arg(
        'a',
        "archive",
        "FILE",
        "metrics source is a PCP log archive",
    );
    pub const DEBUG: Opt = Opt::arg('D', "debug", "DBG", "set debug options").hidden();
    pub const GUIMODE: Opt = Opt::flag('g', "guimode", "start in GUI mode with new time control");
    pub const HOST: Opt = Opt::arg('h', "host", "HOST", "metrics source is PMCD on host");
    pub const NAMESPACE: Opt = Opt::arg('n', "namespace", "FILE", "use an alternative PMNS");
    pub const ORIGIN: Opt = Opt::arg(
        'O',
        "origin",
        "TIME",
        "initial sample time within the time window",
    );
    pub const GUIPORT: Opt = Opt::arg(
        'p',
        "guiport",
        "N",
        "port for connection to existing time control",
    );
    pub const START: Opt = Opt::arg('S', "start", "TIME", "start of the time window");
    pub const SAMPLES: Opt = Opt::arg('s', "samples", "N", "terminate after this many samples");
    pub const FINISH: Opt = Opt::arg('T', "finish", "TIME", "end of the time window");
    pub const INTERVAL: Opt = Opt::arg('t', "interval", "DELTA", "sampling interval");
    pub const TIMEZONE: Opt = Opt::arg('Z', "timezone", "TZ", "set reporting timezone");
    pub const HOSTZONE: Opt = Opt::flag(
        'z',
        "hostzone",
        "set reporting timezone to local time of metrics source",
    );
    /// `--container` (libpcp's `PMOPT_CONTAINER`, long only: its key is
    /// [`CONTAINER_KEY`]).
    pub const CONTAINER: Opt = Opt::arg(
        CONTAINER_KEY,
        "container",
        "NAME",
        "specify an individual container to be queried",
    );
    pub const CONTAINER_KEY: char = '\u{1}';
    pub const VERSION: Opt = Opt::flag('V', "version", "display version number and exit");
    pub const HELP: Opt = Opt::flag('?', "help", "show this usage message and exit");
    pub const SPECLOCAL: Opt = Opt::arg(
        'K',
        "spec-local",
        "SPEC",
        "optional additional PMDA spec for local connection",
    );
    pub const LOCALPMDA: Opt = Opt::flag(
        'L',
        "local-PMDA",
        "metrics source is local connection to a PMDA",
    );
    /// `--skip-damaged`: several archives opened as PCP 7.1.4 opens them (ours,
    /// long only).
    pub const SKIP_DAMAGED: Opt = Opt::flag(
        SKIP_DAMAGED_KEY,
        "skip-damaged",
        "of several archives, leave out those that cannot be opened or read (as PCP 7.1.4)",
    )
    .ours();
    pub const SKIP_DAMAGED_KEY: char = '\u{3}';
    /// `--version` where PCP's tool has none: ours, long only.
    pub const OUR_VERSION: Opt = Opt::flag(
        crate::about::VERSION_OPT,
        "version",
        "PCP's version line, then this project's",
    )
    .ours();
}

#[cfg(test)]
mod tests {
    use super::std_opts::*;
    use super::*;

    const TOOL: Tool = Tool {
        name: "pmtest",
        synopsis: "[options] archive",
        purpose: "a test",
        sections: &[Section {
            title: "Options",
            opts: &[
                DEBUG,
                Opt::flag('a', "all", "dump everything"),
                Opt::short_arg('v', "FILE", "verbose hex dump"),
                START,
                FINISH,
                Opt::arg('\u{1}', "container", "NAME", "a container"),
                HELP,
                Opt::flag('J', "json", "as JSON").ours(),
                Opt::arg('\u{3}', "a-very-long-option", "VALUE", "x").ours(),
            ],
        }],
        notes: "",
    };

    #[test]
    fn getopt_tables_come_from_the_definition() {
        assert_eq!(TOOL.short(), "D:av:S:T:?");
        let long: Vec<(&str, bool, char)> = TOOL
            .long()
            .iter()
            .map(|l| (l.name, l.has_arg, l.short))
            .collect();
        assert_eq!(
            long,
            [
                ("debug", true, 'D'),
                ("all", false, 'a'),
                ("start", true, 'S'),
                ("finish", true, 'T'),
                ("container", true, '\u{1}'),
                ("help", false, '?'),
                ("json", false, 'J'),
                ("a-very-long-option", true, '\u{3}'),
            ]
        );
        let p = TOOL.getopt(&["--js".into(), "-J".into()]);
        assert_eq!(
            p.unwrap_err(),
            "invalid option -- 'J'",
            "ours are long only"
        );
    }

    #[test]
    fn usage_as_pcp_lays_it_out() {
        assert_eq!(
            TOOL.usage(),
            "Usage: pmtest [options] archive

Options:
  -a, --all             dump everything
  -v FILE               verbose hex dump
  -S TIME, --start=TIME start of the time window
  -T TIME, --finish=TIME
                        end of the time window
  --container=NAME      a container
  -?, --help            show this usage message and exit
"
        );
        assert_eq!(
            TOOL.ours(),
            "\nOptions of pcp-archive-rs (not in PCP 6.0.3):\n  --json                as JSON\n  --a-very-long-option=VALUE\n                        x\n"
        );
    }

    #[test]
    fn the_clap_command_has_every_shown_option() {
        let cmd = TOOL.command();
        let longs: Vec<&str> = cmd.get_arguments().filter_map(|a| a.get_long()).collect();
        assert_eq!(
            longs,
            [
                "all",
                "start",
                "finish",
                "container",
                "help",
                "json",
                "a-very-long-option"
            ]
        );
        let v = cmd.get_arguments().find(|a| a.get_short() == Some('v'));
        assert!(v.is_some_and(|a| a.get_long().is_none()));
        cmd.debug_assert();
    }
}

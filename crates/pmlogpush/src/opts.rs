//! pmlogpush's command line, as PCP 7.2's parses it (pmGetOptions: `-V` prints
//! the version; a mistake, `-?` or no archive prints the usage and exits 1;
//! operands after the first are ignored).

use cli_common::shell::Parse;
use cli_common::spec::{std_opts as pcp, Opt, Section, Tool};

/// pmlogpush's options.
pub const TOOL: Tool = Tool {
    name: "pmlogpush",
    synopsis: "[options] archive",
    purpose: "push a Performance Co-Pilot archive to pmproxy",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::arg('D', "debug", "DBG", "set debug options, see pmdbg(1)"),
            Opt::arg('h', "host", "HOST", "pmproxy HTTP connection host name"),
            Opt::arg('p', "port", "PORT", "pmproxy HTTP connection port number"),
            Opt::flag('S', "secure", "use a secure (TLS) HTTPS connection"),
            Opt::arg(
                'U',
                "username",
                "USER",
                "user name for HTTP Basic authentication",
            ),
            Opt::arg(
                'P',
                "password-file",
                "FILE",
                "file holding the HTTP Basic auth password",
            ),
            Opt::arg('s', "unix", "PATH", "pmproxy HTTP Unix domain socket path"),
            Opt::flag('v', "verbose", "verbose progress diagnostics"),
            pcp::VERSION,
            pcp::HELP,
        ],
    }],
    notes: "",
};

/// What the command line asks for.
#[derive(Debug, Clone)]
pub struct Opts {
    pub host: String,
    /// As `atoi` reads it.
    pub port: i32,
    pub unix: Option<String>,
    pub secure: bool,
    pub username: Option<String>,
    pub password_file: Option<String>,
    pub verbose: bool,
    pub archive: String,
}

impl Opts {
    /// The connection as pmlogpush names it in its messages.
    pub fn conn(&self) -> String {
        match &self.unix {
            Some(path) => format!("unix:/{path}"),
            None => format!(
                "{}://{}:{}",
                if self.secure { "https" } else { "http" },
                self.host,
                self.port as u32
            ),
        }
    }
}

/// The command line, or the usage.
pub fn parse(args: &[String]) -> Parse<Opts> {
    let p = match TOOL.getopt(args) {
        Ok(p) => p,
        Err(msg) => return Parse::Usage(Some(msg)),
    };
    let mut o = Opts {
        host: "localhost".into(),
        port: 44322,
        unix: None,
        secure: false,
        username: None,
        password_file: None,
        verbose: false,
        archive: String::new(),
    };
    for (c, v) in p.opts {
        let v = v.unwrap_or_default();
        match c {
            'D' => {
                if let Err(e) = cli_common::debug::check(&v) {
                    return Parse::UsageAfter(format!("{}: {e}\n", TOOL.name));
                }
            }
            'h' => o.host = v,
            'p' => o.port = cli_common::window::strtol(&v).0 as i32,
            's' => o.unix = Some(v),
            'S' => o.secure = true,
            'U' => o.username = Some(v),
            'P' => o.password_file = Some(v),
            'v' => o.verbose = true,
            'V' => return Parse::Version,
            _ => return Parse::Usage(None),
        }
    }
    match p.operands.into_iter().next() {
        Some(a) => o.archive = a,
        None => return Parse::Usage(None),
    }
    Parse::Run(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn connections_are_named_as_pmlogpush_names_them() {
        let Parse::Run(o) = parse(&args(&["-p", "8x", "-h", "h", "a", "b"])) else {
            panic!("parsed");
        };
        assert_eq!((o.conn().as_str(), o.archive.as_str()), ("http://h:8", "a"));
        let Parse::Run(o) = parse(&args(&["-S", "-s", "/run/p", "a"])) else {
            panic!("parsed");
        };
        assert_eq!(o.conn(), "unix://run/p");
        let Parse::Run(o) = parse(&args(&["-S", "a"])) else {
            panic!("parsed");
        };
        assert_eq!(o.conn(), "https://localhost:44322");
        assert!(matches!(parse(&args(&[])), Parse::Usage(None)));
        assert!(matches!(parse(&args(&["-V", "a"])), Parse::Version));
        assert!(matches!(parse(&args(&["-x", "a"])), Parse::Usage(Some(_))));
    }
}

//! Opening an archive context as the tools do: one archive, a list, or a directory;
//! with our `--skip-damaged`, as PCP 7.1.4's libpcp opens several archives,
//! leaving out (with its warning) those that cannot be opened.

use archive_format::error::{in_pcp7_words, PM_ERR_LOGFILE};
use archive_format::{Archive, OpenOptions};
use std::io::Write;

/// Opens `spec`, or says why not (the words of libpcp's error: PCP 7's with
/// `skip_damaged`); with `skip_damaged`, each archive left out of several is said
/// to `err` as PCP 7's libpcp says it, and so is a list of which none could be
/// opened.
pub fn open(
    prog: &str,
    spec: &str,
    skip_damaged: bool,
    err: &mut dyn Write,
) -> Result<Archive, String> {
    open_with(prog, spec, skip_damaged, OpenOptions::default(), err)
}

/// [`open`], one archive opened as `opts` say.
pub fn open_with(
    prog: &str,
    spec: &str,
    skip_damaged: bool,
    opts: OpenOptions,
    err: &mut dyn Write,
) -> Result<Archive, String> {
    let mut said = |name: &str, e: &archive_format::Error| {
        crate::notify::skipped_archive(err, prog, name, &in_pcp7_words(&e.pm_message()));
    };
    match Archive::open_context_with(spec, skip_damaged, opts, &mut said) {
        Ok(a) => Ok(a),
        Err(e) if skip_damaged => {
            if e.pm_err() == PM_ERR_LOGFILE && e.detail().contains("all archives") {
                let msg = "initarchive: all archives are corrupt/unreadable";
                crate::notify::notice(err, prog, "Error", msg);
            }
            Err(in_pcp7_words(&e.pm_message()))
        }
        Err(e) => Err(e.pm_message()),
    }
}

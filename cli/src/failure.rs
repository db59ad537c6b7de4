//! Why a command failed ([`Failure`]): its one-line message, made safe to print
//! ([`printable`]), and its exit code; and the failures of the library and of the cases as the
//! command words them.

/// Why a command failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// An option value is wrong in a way clap could not see (exit code 2).
    Usage(String),
    /// Anything else: unreadable or invalid input, a file that cannot be written (exit code 1).
    Error(String),
    /// A failure another process reports (under MPI rank 0 prints for every rank): exit with
    /// this code and print nothing.
    Silent(u8),
}

impl Failure {
    /// The process exit code: 2 for usage errors, 1 otherwise.
    pub fn code(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Error(_) => 1,
            Failure::Silent(code) => *code,
        }
    }

    /// The message, on one line, safe to print (see [`printable`]).
    pub fn message(&self) -> String {
        match self {
            Failure::Usage(m) | Failure::Error(m) => {
                printable(&m.split_whitespace().collect::<Vec<_>>().join(" "))
            }
            Failure::Silent(_) => String::new(),
        }
    }
}

/// `text` with its control characters (which a file quoted in a message could use to retitle
/// or clear the terminal) and bidirectional overrides written as escapes: `\x1b` for an ASCII
/// one, `\u{202e}` for the others. Every `plume:` line goes through it.
pub fn printable(text: &str) -> String {
    let bidi = |c: char| matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_control() {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else if c.is_control() || bidi(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

impl From<plume::Error> for Failure {
    fn from(e: plume::Error) -> Self {
        Failure::Error(e.to_string())
    }
}

impl From<plume_cases::Error> for Failure {
    fn from(e: plume_cases::Error) -> Self {
        Failure::of_case(&e)
    }
}

impl Failure {
    /// The failure a case's error is on the command line: its settings' refusals are usage
    /// errors naming the options that gave them.
    pub fn of_case(e: &plume_cases::Error) -> Failure {
        use plume_cases::Error;
        match e {
            Error::Setting(m) => Failure::Usage(m.clone()),
            Error::RanksExceedRoots { procs, roots } => Failure::Usage(format!(
                "--procs {procs} must be between 1 and the number of roots ({roots})"
            )),
            Error::PartsExceedRoots {
                procs,
                parts_per_proc,
                roots,
            } => Failure::Usage(format!(
                "--procs {procs} × --parts-per-proc {parts_per_proc} = {} parts, more than the \
                 {roots} roots",
                *procs as u128 * *parts_per_proc as u128
            )),
            Error::RanksConflict { asked, started } => Failure::Usage(format!(
                "--procs {asked} conflicts with the {started} processes mpirun started: leave \
                 --procs out with --backend mpi"
            )),
            Error::NoMpi { case } => Failure::Usage(format!(
                "--backend mpi needs a plume built with MPI: `cargo build --release --features mpi` \
                 (with Open MPI's libopenmpi-dev), then `mpirun -n P plume run {case} --backend mpi`"
            )),
            Error::ProbeOutside { point, lo, hi } => Failure::Usage(format!(
                "--probe {},{},{} lies outside the mesh (its bounding box: {lo:?} to {hi:?})",
                point[0], point[1], point[2]
            )),
            Error::SettingOutOfRange { .. } => Failure::Usage(as_options(&e.to_string())),
            Error::MemoryExceeded { .. } | Error::Unphysical { .. } => {
                Failure::Error(as_options(&e.to_string()))
            }
            Error::Reported(inner) => Failure::Silent(Failure::of_case(inner).code()),
            other => Failure::Error(other.to_string()),
        }
    }
}

/// `text` with the settings a case names as their configuration fields between backticks
/// (`` `max_depth` ``) written as the options that give them (`--max-depth`).
fn as_options(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pieces = text.split('`');
    out.push_str(pieces.next().unwrap_or_default());
    while let Some(setting) = pieces.next() {
        match pieces.next() {
            Some(after) => {
                out.push_str("--");
                out.push_str(&setting.replace('_', "-"));
                out.push_str(after);
            }
            // An unpaired backtick is text.
            None => {
                out.push('`');
                out.push_str(setting);
            }
        }
    }
    out
}

impl From<Failure> for plume_cases::Error {
    /// A check of the command line's inside a case's run (its configuration, its mesh): a
    /// usage error is a setting refused, anything else an input that cannot be used.
    fn from(f: Failure) -> Self {
        match f {
            Failure::Usage(m) => plume_cases::Error::Setting(m),
            Failure::Error(m) => plume_cases::Error::Input(m),
            // Only a case's MPI job reports for its ranks, and it returns `Reported`.
            Failure::Silent(code) => plume_cases::Error::Input(format!("exit code {code}")),
        }
    }
}

/// Result of a subcommand.
pub type CliResult<T = ()> = Result<T, Failure>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_names_settings_and_the_command_line_words_them_as_options() {
        let setting = plume_cases::Error::SettingOutOfRange {
            setting: "coarsen_below".into(),
            value: "0.5".into(),
            rule: "must be at least 0 and below `refine_above` 0.25".into(),
        };
        let f = Failure::of_case(&setting);
        assert_eq!(f.code(), 2);
        assert_eq!(
            f.message(),
            "--coarsen-below 0.5 must be at least 0 and below --refine-above 0.25"
        );
        let memory = plume_cases::Error::MemoryExceeded {
            what: "iteration 3: about 80 leaves".into(),
            need: 2_000_000,
            available: 1_000_000,
            hint: "use a smaller `max_depth`, fewer `cells` or fewer iterations".into(),
        };
        let f = Failure::of_case(&memory);
        assert_eq!(f.code(), 1);
        assert_eq!(
            f.message(),
            "iteration 3: about 80 leaves would need about 2 MB of memory, but 1 MB is \
             available; use a smaller --max-depth, fewer --cells or fewer iterations"
        );
        // An unpaired backtick stays text.
        assert_eq!(as_options("a `b_c` d `e"), "a --b-c d `e");
    }
}

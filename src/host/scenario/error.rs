//! Why a scenario cannot be used: the file unread, its TOML broken (with line and column),
//! a value the run cannot take, or no scenario by that name; said in the reader's language.

use std::path::{Path, PathBuf};

use crate::i18n::Said;

/// Why a scenario cannot be used; [`ScenarioError::said`] says it in any language.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read scenario {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The TOML reader's own words (`message`), at a line and column of the file when known.
    #[error("scenario {path} is not valid{}: {message}", place(*.line, *.column))]
    Parse {
        path: PathBuf,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    #[error("scenario {path}: {}", .problem.english())]
    Invalid { path: PathBuf, problem: Said },
    /// Neither a file nor a shipped scenario's name.
    #[error(
        "no scenario file {path}, nor a shipped scenario of that name (`sightline run --list` names them)"
    )]
    NotFound { path: PathBuf },
}

/// ` (line L, column C)`, in English, when the place is known.
fn place(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(" (line {line}, column {column})"),
        _ => String::new(),
    }
}

impl ScenarioError {
    /// The error as a sentence each language can say (`scenario_error.*`); the TOML reader's
    /// own words are quoted as they are.
    pub fn said(&self) -> Said {
        match self {
            ScenarioError::Read { path, source } => Said::new("scenario_error.read")
                .with("path", path.display())
                .with_said("why", Said::io(source)),
            ScenarioError::Parse {
                path,
                line,
                column,
                message,
            } => {
                let at = match (line, column) {
                    (Some(line), Some(column)) => Said::new("scenario_error.place")
                        .with("line", line)
                        .with("column", column),
                    _ => Said::empty(),
                };
                Said::new("scenario_error.parse")
                    .with("path", path.display())
                    .with_said("at", at)
                    .with("message", message)
            }
            ScenarioError::Invalid { path, problem } => Said::new("scenario_error.invalid")
                .with("path", path.display())
                .with_said("problem", problem.clone()),
            ScenarioError::NotFound { path } => {
                Said::new("scenario_error.not_found").with("path", path.display())
            }
        }
    }

    pub(super) fn parse(path: &Path, text: &str, err: &toml::de::Error) -> ScenarioError {
        let (line, column) = match err.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        ScenarioError::Parse {
            path: path.to_path_buf(),
            line,
            column,
            message: err.message().trim().replace('\n', " "),
        }
    }
}

//! The pin file: which definition of each tool of each server was approved, and when. This
//! is data and the rules on it; reading and writing the file is the command line's
//! (the CLI's `pins` module).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::findings::{
    Finding, changed_fields, compare_lists, definition_diff, listed_label, pinned_label,
};
use crate::analysis::canonical::{canonical_json_pretty, shape_hash};
use crate::analysis::definitions::{ServerId, ToolList};
use crate::i18n::{Language, Words};

/// The `version` written in the pin file.
pub const PIN_FILE_VERSION: u32 = 1;

/// One pinned tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pin {
    pub tool: String,
    /// Hex SHA-256 of `definition`.
    pub sha256: String,
    /// When it was pinned (RFC 3339, UTC).
    pub pinned_at: String,
    /// The pinned definition as canonical JSON, kept for the diff when it changes.
    pub definition: String,
}

impl Pin {
    fn value(&self) -> Value {
        serde_json::from_str(&self.definition).unwrap_or(Value::Null)
    }
}

/// The pins of one server identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerPins {
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    pub tools: Vec<Pin>,
}

impl ServerPins {
    pub fn id(&self) -> ServerId {
        ServerId {
            name: self.server.clone(),
            command: self.command.clone(),
        }
    }
}

/// The pin file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PinFile {
    pub version: u32,
    #[serde(default)]
    pub servers: Vec<ServerPins>,
}

impl Default for PinFile {
    fn default() -> Self {
        PinFile {
            version: PIN_FILE_VERSION,
            servers: Vec::new(),
        }
    }
}

/// Why a pin file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PinFileError {
    #[error("{} is not a Sightline pin file", path.display())]
    NotPinFile {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{} has version {version}; this Sightline reads version {PIN_FILE_VERSION}", path.display())]
    TooNew { path: PathBuf, version: u32 },
}

/// A tool `accept` pinned.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    pub server: ServerId,
    pub tool: String,
    pub sha256: String,
    /// The hash it replaced; `None` for a new pin.
    pub previous: Option<String>,
}

/// The pin file, loaded (the CLI's `pins` module reads and writes it).
#[derive(Debug, Clone, PartialEq)]
pub struct PinStore {
    pub path: PathBuf,
    pub file: PinFile,
}

impl PinStore {
    /// The store of a pin file that does not exist yet.
    pub fn empty(path: &Path) -> PinStore {
        PinStore {
            path: path.to_path_buf(),
            file: PinFile::default(),
        }
    }

    /// The pin file at `path`, from its text.
    pub fn parse(path: &Path, text: &str) -> Result<PinStore, PinFileError> {
        let file: PinFile =
            serde_json::from_str(text).map_err(|source| PinFileError::NotPinFile {
                path: path.to_path_buf(),
                source,
            })?;
        if file.version > PIN_FILE_VERSION {
            return Err(PinFileError::TooNew {
                path: path.to_path_buf(),
                version: file.version,
            });
        }
        Ok(PinStore {
            path: path.to_path_buf(),
            file,
        })
    }

    /// The pin file's text: pretty JSON and a final newline.
    pub fn to_text(&self) -> Result<String, serde_json::Error> {
        let mut text = serde_json::to_string_pretty(&self.file)?;
        text.push('\n');
        Ok(text)
    }

    /// Every pin, with its server.
    pub fn pins(&self) -> impl Iterator<Item = (&ServerPins, &Pin)> {
        self.file
            .servers
            .iter()
            .flat_map(|s| s.tools.iter().map(move |p| (s, p)))
    }

    /// The pins of `id`: exact identity first, else a server of the same name.
    pub fn server(&self, id: &ServerId) -> Option<&ServerPins> {
        let servers = &self.file.servers;
        servers
            .iter()
            .find(|s| s.server == id.name && s.command == id.command)
            .or_else(|| servers.iter().find(|s| s.server == id.name))
    }

    /// Pins every tool of the last complete listing of each server in `lists` (other pins of
    /// the server are kept).
    pub fn accept(&mut self, lists: &[ToolList], now: DateTime<Utc>) -> Vec<Accepted> {
        let pinned_at = now.to_rfc3339_opts(SecondsFormat::Secs, true);
        let mut last: Vec<&ToolList> = Vec::new();
        for list in lists.iter().filter(|l| l.complete) {
            match last.iter_mut().find(|l| l.lane == list.lane) {
                Some(slot) => *slot = list,
                None => last.push(list),
            }
        }
        let mut out = Vec::new();
        for list in last {
            let id = &list.server;
            let index = match self
                .file
                .servers
                .iter()
                .position(|s| s.server == id.name && s.command == id.command)
            {
                Some(index) => index,
                None => {
                    self.file.servers.push(ServerPins {
                        server: id.name.clone(),
                        command: id.command.clone(),
                        tools: Vec::new(),
                    });
                    self.file.servers.len() - 1
                }
            };
            let entry = &mut self.file.servers[index];
            let mut seen = HashSet::new();
            for tool in list.tools.iter().filter(|t| seen.insert(t.name.clone())) {
                let pin = Pin {
                    tool: tool.name.clone(),
                    sha256: tool.sha256.clone(),
                    pinned_at: pinned_at.clone(),
                    definition: tool.canonical.clone(),
                };
                let previous = match entry.tools.iter_mut().find(|p| p.tool == tool.name) {
                    Some(existing) if existing.sha256 == tool.sha256 => {
                        Some(existing.sha256.clone())
                    }
                    Some(existing) => Some(std::mem::replace(existing, pin).sha256),
                    None => {
                        entry.tools.push(pin);
                        None
                    }
                };
                out.push(Accepted {
                    server: id.clone(),
                    tool: tool.name.clone(),
                    sha256: tool.sha256.clone(),
                    previous,
                });
            }
            entry.tools.sort_by(|a, b| a.tool.cmp(&b.tool));
        }
        out
    }

    /// Forgets `SERVER` (every identity with that name, or the one whose
    /// [`ServerId`] display is `target`) or `SERVER/TOOL`. Returns what was removed as
    /// (server, tool) pairs.
    pub fn forget(&mut self, target: &str) -> Vec<(String, String)> {
        let mut removed = Vec::new();
        let whole = |s: &ServerPins| s.server == target || s.id().to_string() == target;
        if self.file.servers.iter().any(whole) {
            self.file.servers.retain(|s| {
                if whole(s) {
                    removed.extend(s.tools.iter().map(|p| (s.server.clone(), p.tool.clone())));
                    false
                } else {
                    true
                }
            });
            return removed;
        }
        let Some((server, tool)) = target.rsplit_once('/') else {
            return removed;
        };
        for s in &mut self.file.servers {
            if s.server == server || s.id().to_string() == server {
                s.tools.retain(|p| {
                    let hit = p.tool == tool;
                    if hit {
                        removed.push((s.server.clone(), p.tool.clone()));
                    }
                    !hit
                });
            }
        }
        self.file.servers.retain(|s| !s.tools.is_empty());
        removed
    }

    /// Checks every definition in `lists` against the pins. Each distinct definition of a
    /// tool is reported once.
    pub fn check(&self, lists: &[ToolList]) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut seen: HashSet<(ServerId, String, String)> = HashSet::new();
        let mut unpinned_servers: HashSet<ServerId> = HashSet::new();
        for list in lists {
            let server = list.server.name.clone();
            let Some(pins) = self.server(&list.server) else {
                if unpinned_servers.insert(list.server.clone()) {
                    out.push(Finding::ServerNotPinned {
                        server,
                        seq: list.seq,
                    });
                }
                continue;
            };
            for tool in &list.tools {
                let key = (list.server.clone(), tool.name.clone(), tool.sha256.clone());
                if !seen.insert(key) {
                    continue;
                }
                if let Some(pin) = pins.tools.iter().find(|p| p.tool == tool.name) {
                    if pin.sha256 == tool.sha256 {
                        continue;
                    }
                    let pinned = pin.value();
                    let en = Words::of(Language::En);
                    let before = pinned_label(en, &pin.tool, &pin.pinned_at, &pin.sha256);
                    let after = listed_label(en, &tool.name, tool.seq, &tool.sha256);
                    out.push(Finding::PinChanged {
                        server: server.clone(),
                        tool: tool.name.clone(),
                        seq: tool.seq,
                        pinned_at: pin.pinned_at.clone(),
                        pinned_sha256: pin.sha256.clone(),
                        sha256: tool.sha256.clone(),
                        changed: changed_fields(&pinned, &tool.definition),
                        diff: definition_diff(
                            &canonical_json_pretty(&pinned),
                            &tool.pretty(),
                            &before,
                            &after,
                        ),
                    });
                    continue;
                }
                let shape = tool.shape_sha256();
                let renamed = pins
                    .tools
                    .iter()
                    .find(|p| list.tool(&p.tool).is_none() && shape_hash(&p.value()) == shape);
                out.push(match renamed {
                    Some(pin) => Finding::PinRenamed {
                        server: server.clone(),
                        pinned: pin.tool.clone(),
                        tool: tool.name.clone(),
                        seq: tool.seq,
                        pinned_at: pin.pinned_at.clone(),
                    },
                    None => Finding::NotPinned {
                        server: server.clone(),
                        tool: tool.name.clone(),
                        seq: tool.seq,
                    },
                });
            }
        }
        out
    }
}

/// Everything `sightline pins check` reports: changes within the trace, then against the
/// pins (when a store is given).
pub fn check_trace(lists: &[ToolList], store: Option<&PinStore>) -> Vec<Finding> {
    let mut out = compare_lists(lists);
    if let Some(store) = store {
        out.extend(store.check(lists));
    }
    out
}

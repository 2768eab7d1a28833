//! What the app calls each lane, in the reader's language: the user, the host and the model by
//! name, a server by its own. The diagram's header, the inspector and the message list's lane
//! filter say it the same way. (An export names lanes for a page instead: `export::lane_title`.)

use crate::analysis::diagram::{LaneInfo, LaneKind};
use crate::i18n::Words;

/// A lane's title in the UI language (server and unknown lanes keep their names).
pub fn lane_title(tr: Words<'_>, lane: &LaneInfo) -> String {
    match lane.kind {
        LaneKind::User => tr.get("diagram.lane_user").to_string(),
        LaneKind::Host => tr.get("diagram.lane_host").to_string(),
        LaneKind::Llm => tr.get("diagram.lane_llm").to_string(),
        LaneKind::Server => tr.fmt("diagram.lane_server", &[("name", &lane.title)]),
        LaneKind::Remote => tr.fmt("diagram.lane_remote", &[("name", &lane.title)]),
        LaneKind::Other => lane.title.clone(),
    }
}

//! `sightline run SCENARIO --replay-model TRACE`: the run's model is the recording's.
//!
//! Composition only: [`crate::host::replay::cassette`] reads the recorded LLM responses for
//! the scripted model's server to serve in order; after the run,
//! [`crate::analysis::divergence`] finds the turn at which the loop left the recording and
//! [`crate::export::replay::divergence_text`] says so.

use std::path::Path;

use crate::host::replay::cassette::Cassette;

/// The recorded model responses of `trace`, or a one-line error naming the file.
pub fn cassette(trace: &Path) -> anyhow::Result<Cassette> {
    let recorded = super::load_trace(trace)?;
    Cassette::from_events(&recorded.events).map_err(|e| anyhow::anyhow!("{}: {e}", trace.display()))
}

/// Prints where the new run (`new`) diverged from the recording (`recorded`); `true` when it
/// did.
pub fn report(recorded: &Path, new: &Path, lang: crate::i18n::Language) -> anyhow::Result<bool> {
    let old = super::load_trace(recorded)?;
    let new = super::load_trace(new)?;
    let (old_rpc, new_rpc) = (
        crate::trace::analyze(&old.events),
        crate::trace::analyze(&new.events),
    );
    let d = crate::analysis::divergence::divergence(
        (&old.events, &old_rpc),
        (&new.events, &new_rpc),
        &crate::analysis::compare::Ignore::defaults(),
    );
    super::edges::write_stdout(&crate::export::replay::divergence_text(
        &d,
        crate::i18n::Words::of(lang),
    ))?;
    Ok(d.diverged.is_some() || !d.servers.is_empty())
}

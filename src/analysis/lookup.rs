//! Indexes over a [`Report`](super::Report)'s side tables, built once with it, so that asking
//! about one event (is it an LLM request, which exchange, is it the `tools/call` of a model
//! call, which chains did this response ask for) costs a binary search instead of a scan of
//! every exchange or chain: renderings ask that for every event, and a scan per event made
//! `summary` and the exports quadratic on traces with many tool calls.

use super::links::CallChain;
use super::llm::{LlmExchange, LlmRole};

/// Sorted lookups from event indices into the exchanges and the chains.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Lookup {
    /// `(event, exchange, role)`, sorted by event: every request and response of an exchange.
    llm: Vec<(usize, usize, LlmRole)>,
    /// The same for the exchanges made for a server's sampling request.
    sampling: Vec<(usize, usize, LlmRole)>,
    /// `(tools_call event, chain)`, sorted; the first chain of each `tools/call`.
    calls: Vec<(usize, usize)>,
    /// `(asked_in event, first chain, end)`, sorted: the chains a response asked for.
    asked: Vec<(usize, usize, usize)>,
}

impl Lookup {
    pub(super) fn new(
        llm: &[LlmExchange],
        sampling: &[LlmExchange],
        chains: &[CallChain],
    ) -> Lookup {
        let mut calls: Vec<(usize, usize)> = chains
            .iter()
            .enumerate()
            .filter_map(|(k, c)| c.tools_call.map(|i| (i, k)))
            .collect();
        calls.sort_by_key(|c| c.0);
        calls.dedup_by_key(|c| c.0);
        let mut asked: Vec<(usize, usize, usize)> = Vec::new();
        for (k, c) in chains.iter().enumerate() {
            match asked.last_mut() {
                Some(last) if last.0 == c.asked_in && last.2 == k => last.2 = k + 1,
                _ => asked.push((c.asked_in, k, k + 1)),
            }
        }
        asked.sort_by_key(|a| a.0);
        Lookup {
            llm: by_event(llm),
            sampling: by_event(sampling),
            calls,
            asked,
        }
    }

    /// The exchange event `i` belongs to, and as which half. A request wins over a response.
    pub(super) fn llm(&self, i: usize) -> Option<(usize, LlmRole)> {
        let at = self.llm.partition_point(|e| e.0 < i);
        let mut found = None;
        for &(_, n, role) in self.llm[at..].iter().take_while(|e| e.0 == i) {
            match (found, role) {
                (None, _) | (Some((_, LlmRole::Response)), LlmRole::Request) => {
                    found = Some((n, role));
                }
                _ => {}
            }
        }
        found
    }

    /// The first sampling exchange event `i` is the request or the response of.
    pub(super) fn sampling(&self, i: usize) -> Option<usize> {
        let at = self.sampling.partition_point(|e| e.0 < i);
        self.sampling[at..]
            .iter()
            .take_while(|e| e.0 == i)
            .map(|e| e.1)
            .min()
    }

    /// The first chain whose `tools/call` is event `i`.
    pub(super) fn chain_of_call(&self, i: usize) -> Option<usize> {
        let k = self.calls.binary_search_by_key(&i, |c| c.0).ok()?;
        Some(self.calls[k].1)
    }

    /// The chains asked for by the response at event `i` (contiguous in the chain table).
    pub(super) fn asked_in(&self, i: usize) -> std::ops::Range<usize> {
        let at = self.asked.partition_point(|a| a.0 < i);
        match self.asked.get(at).filter(|a| a.0 == i) {
            Some(&(_, start, end)) => start..end,
            None => 0..0,
        }
    }
}

/// Every request and response of `exchanges` as `(event, exchange, role)`, sorted by event.
fn by_event(exchanges: &[LlmExchange]) -> Vec<(usize, usize, LlmRole)> {
    let mut by_event = Vec::with_capacity(exchanges.len() * 2);
    for (n, x) in exchanges.iter().enumerate() {
        by_event.push((x.request, n, LlmRole::Request));
        if let Some(r) = x.response {
            by_event.push((r, n, LlmRole::Response));
        }
    }
    // A stable sort keeps the first exchange of an event first (as a scan would find it).
    by_event.sort_by_key(|e| e.0);
    by_event
}

#[cfg(test)]
mod tests {
    use crate::analysis::{LlmRole, report};
    use crate::trace::load_from_reader;

    /// The primitives tour in both revisions and the weather loop.
    const FIXTURES: [&str; 3] = {
        let [tour_new, tour_old, weather, _] = crate::analysis::fixtures::RECORDINGS;
        [tour_new, tour_old, weather]
    };

    /// Every lookup answers what a scan of the tables answers, on real recordings.
    #[test]
    fn lookups_agree_with_scans() {
        let mut sampled = false;
        for (k, text) in FIXTURES.iter().enumerate() {
            let mut events = load_from_reader(text.as_bytes()).expect("fixture").events;
            if k == 0 {
                // The host's second request to the model made for a server's sampling request.
                let asked = events
                    .iter_mut()
                    .filter(|e| {
                        e.channel == crate::trace::Channel::LlmHttp
                            && e.to == crate::trace::Lane::Llm
                    })
                    .nth(1)
                    .and_then(|e| e.http_mut())
                    .expect("an LLM request with HTTP details");
                asked
                    .headers
                    .push((crate::wire::api::SAMPLING_HEADER.into(), "tour".into()));
            }
            let r = report(&events);
            assert!(!r.llm.is_empty() && !r.chains.is_empty());
            sampled |= !r.sampling.is_empty();
            for i in 0..events.len() {
                let scan = r
                    .llm
                    .iter()
                    .position(|x| x.request == i)
                    .map(|n| (n, LlmRole::Request))
                    .or_else(|| {
                        let n = r.llm.iter().position(|x| x.response == Some(i))?;
                        Some((n, LlmRole::Response))
                    });
                assert_eq!(r.llm_of(i), scan, "event {i}");
                let sampling = r
                    .sampling
                    .iter()
                    .find(|x| x.request == i || x.response == Some(i));
                assert_eq!(
                    r.sampling_of(i).map(std::ptr::from_ref),
                    sampling.map(std::ptr::from_ref),
                    "event {i}"
                );
                let call = r.chains.iter().find(|c| c.tools_call == Some(i));
                assert_eq!(r.chain_of_call(i), call, "event {i}");
                for c in &r.chains {
                    let asked = r
                        .chains
                        .iter()
                        .find(|k| k.call_id == c.call_id && k.asked_in == i);
                    assert_eq!(r.chain_asked(i, &c.call_id), asked, "event {i}");
                }
            }
        }
        assert!(sampled, "no fixture has a sampling exchange");
    }
}

//! Two traces lined up step by step, so two diagrams can be read side by side.
//!
//! A step is what a reader sees as "the same arrow": the same kind of message, the same method
//! (and tool), between the same lanes. The two handshakes count as one step whatever the
//! revision (`initialize` in 2025-11-25, `server/discover` in 2026-07-28), so the loop that
//! follows lines up too. The alignment is a longest common subsequence of the step keys, after
//! the common start and end are taken off; past [`MAX_CELLS`] table cells (two traces of a few
//! thousand events each) the middle is paired by position instead, so the cost stays bounded.
//! A protocol message weighs more than a process event, a stderr line or a note: where the
//! two recordings interleave them differently (a server's stderr line written before or after
//! the handshake, as the scheduler had it), the messages are the ones paired.
//!
//! Used by the app's compare view (two revisions of one scenario, or two recordings).

use crate::trace::{Analysis, Event, Kind};

/// The largest dynamic-programming table built (cells of two bytes: 8 MB).
pub const MAX_CELLS: usize = 4_000_000;

/// One aligned step: the event index on each side, or `None` where a side has no such step.
pub type Step = (Option<usize>, Option<usize>);

/// The key that says two events are the same step.
pub fn step_key(event: &Event, derived: &crate::trace::Derived) -> String {
    let lanes = format!("{}>{}", event.from, event.to);
    match derived.kind {
        Kind::Request | Kind::Notification | Kind::Response | Kind::Error => {
            let method = match derived.method.as_deref().unwrap_or("") {
                "initialize" | "server/discover" => "handshake",
                other => other,
            };
            let kind = match derived.kind {
                Kind::Request => "request",
                Kind::Notification => "notification",
                _ => "answer",
            };
            // The handshakes' details (the revision asked for) differ by design.
            let detail = match method {
                "handshake" => "",
                _ => derived.detail.as_deref().unwrap_or(""),
            };
            format!("{kind}:{method}:{detail}:{lanes}")
        }
        Kind::Process | Kind::Stderr | Kind::Invalid => {
            format!("{}:{}", derived.kind.as_str(), event.from)
        }
        other => format!("{}:{lanes}", other.as_str()),
    }
}

/// Each event's step key and weight: 2 for a JSON-RPC message, 1 for anything else.
fn keys(events: &[Event], rpc: &Analysis) -> Vec<(String, u16)> {
    events
        .iter()
        .zip(&rpc.derived)
        .map(|(e, d)| {
            let message = matches!(
                d.kind,
                Kind::Request | Kind::Notification | Kind::Response | Kind::Error
            );
            (step_key(e, d), if message { 2 } else { 1 })
        })
        .collect()
}

/// The steps of `a` and `b` in order: matched pairs, and the events only one side has.
pub fn align(a: (&[Event], &Analysis), b: (&[Event], &Analysis)) -> Vec<Step> {
    align_weighted(&keys(a.0, a.1), &keys(b.0, b.1), |k| k.1)
}

/// [`align`] on precomputed keys, each weighing the same.
pub fn align_keys<K: PartialEq>(a: &[K], b: &[K]) -> Vec<Step> {
    align_weighted(a, b, |_| 1)
}

/// The alignment that pairs the most weight (`weight` of a key, 1 or 2; equal keys weigh the
/// same).
fn align_weighted<K: PartialEq>(a: &[K], b: &[K], weight: impl Fn(&K) -> u16) -> Vec<Step> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut steps: Vec<Step> = (0..prefix).map(|i| (Some(i), Some(i))).collect();
    let middle = if (ma.len() + 1).saturating_mul(mb.len() + 1) <= MAX_CELLS
        && ma.len().max(mb.len()) < usize::from(u16::MAX)
    {
        lcs(ma, mb, weight)
    } else {
        by_position(ma.len(), mb.len())
    };
    steps.extend(
        middle
            .into_iter()
            .map(|(x, y)| (x.map(|x| x + prefix), y.map(|y| y + prefix))),
    );
    let (ea, eb) = (a.len() - suffix, b.len() - suffix);
    steps.extend((0..suffix).map(|i| (Some(ea + i), Some(eb + i))));
    steps
}

fn by_position(n: usize, m: usize) -> Vec<Step> {
    (0..n.max(m))
        .map(|i| ((i < n).then_some(i), (i < m).then_some(i)))
        .collect()
}

/// A longest common subsequence by weight. Pairing two equal keys where they are both next is
/// always part of a best one (they weigh the same), as with plain lengths.
fn lcs<K: PartialEq>(a: &[K], b: &[K], weight: impl Fn(&K) -> u16) -> Vec<Step> {
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    // table[i * w + j]: the weight of the best common subsequence of a[i..] and b[j..] (at
    // most 2 x 2,000 within MAX_CELLS).
    let mut table = vec![0u16; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i * w + j] = if a[i] == b[j] {
                table[(i + 1) * w + j + 1].saturating_add(weight(&a[i]))
            } else {
                table[(i + 1) * w + j].max(table[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut steps = Vec::with_capacity(n.max(m));
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            steps.push((Some(i), Some(j)));
            i += 1;
            j += 1;
        } else if j >= m || (i < n && table[(i + 1) * w + j] >= table[i * w + j + 1]) {
            steps.push((Some(i), None));
            i += 1;
        } else {
            steps.push((None, Some(j)));
            j += 1;
        }
    }
    steps
}

/// The step of each event of one side (`side` 0 for `a`, 1 for `b`), for jumping from a
/// selected event to its counterpart.
pub fn step_of(steps: &[Step], side: usize, len: usize) -> Vec<usize> {
    let mut of = vec![0; len];
    for (s, step) in steps.iter().enumerate() {
        let e = if side == 0 { step.0 } else { step.1 };
        if let Some(e) = e.filter(|&e| e < len) {
            of[e] = s;
        }
    }
    of
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_steps_pair_and_the_extra_ones_stand_alone() {
        let a = ["u", "h", "init-done", "list", "call", "end"];
        let b = ["u", "h", "list", "listen", "call", "end"];
        let steps = align_keys(&a, &b);
        assert_eq!(
            steps,
            vec![
                (Some(0), Some(0)),
                (Some(1), Some(1)),
                (Some(2), None),
                (Some(3), Some(2)),
                (None, Some(3)),
                (Some(4), Some(4)),
                (Some(5), Some(5)),
            ]
        );
        let of_b = step_of(&steps, 1, b.len());
        assert_eq!(of_b, vec![0, 1, 3, 4, 5, 6]);
    }

    /// The handshake written before the server's stderr line on one side and after it on the
    /// other: the messages pair, the stderr lines stand alone (with equal weights the tie went
    /// to the stderr lines, and the left handshake had no counterpart).
    #[test]
    fn messages_pair_before_lines_that_crossed_in_another_order() {
        let (hs, err, list) = (("handshake", 2), ("stderr", 1), ("list", 2));
        let a = [("spawn", 1), hs, err, list];
        let b = [("spawn", 1), err, hs, list];
        let steps = align_weighted(&a, &b, |k| k.1);
        assert!(steps.contains(&(Some(1), Some(2))), "{steps:?}");
        assert!(steps.contains(&(Some(3), Some(3))), "{steps:?}");
        assert_eq!(steps.len(), 5, "{steps:?}");
    }

    #[test]
    fn too_big_a_middle_is_paired_by_position() {
        let a: Vec<u32> = (0..2100).collect();
        let b: Vec<u32> = (5000..7100).collect();
        let steps = align_keys(&a, &b);
        assert_eq!(steps.len(), 2100);
        assert!(steps.iter().all(|s| s.0 == s.1));
    }
}

//! Where the lifelines stand: each gap between two neighbouring lanes is as wide as the widest
//! label of the arrows between them, as Mermaid and PlantUML lay out a sequence diagram, so a
//! label is read whole instead of cut to fit a share of the window.
//!
//! Pure arithmetic on widths the caller measured: the app measures the rows in view with its
//! fonts (a million-row trace is never measured whole), the SVG export estimates from character
//! counts. The rule is tested here without a screen.

/// What a row or a lane's header asks of the layout, in the caller's units (pixels).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Need {
    /// An arrow between lanes `from` and `to` (either order) whose label, with its margins, is
    /// `width` wide: the lanes it spans must stand at least that far apart.
    Arrow { from: usize, to: usize, width: f32 },
    /// A lane's header box `width` wide: neighbouring boxes must not touch.
    Header { lane: usize, width: f32 },
    /// A note `width` wide centred on lane `lane`. It is alone in its row, so it may run over
    /// other lanes; it only has to stay inside the diagram.
    Note { lane: usize, width: f32 },
}

/// The lanes' places.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// Centre x of each lane's lifeline, from 0 (the diagram's left edge).
    pub x: Vec<f32>,
    /// Where the diagram ends on the right: room for the last lane's header and notes.
    pub width: f32,
}

/// Space between two headers, and between a header and the diagram's edge.
const HEADER_SPACE: f32 = 8.0;

/// Spreads `extra` room over the gaps of `placed` (from its lane `0`), each growing to `cap` at
/// most: lanes with short labels between them share a wide window instead of huddling left.
pub fn spread(placed: &mut Placed, extra: f32, cap: f32) {
    let n = placed.x.len();
    if n < 2 || extra <= 0.0 {
        return;
    }
    let mut grown: Vec<f32> = placed.x.windows(2).map(|w| w[1] - w[0]).collect();
    let mut left = extra;
    // Evenly over the gaps still under the cap, a few rounds as some reach it.
    for _ in 0..n {
        let open: Vec<usize> = (0..grown.len()).filter(|&i| grown[i] < cap).collect();
        if open.is_empty() || left <= 0.01 {
            break;
        }
        let share = left / open.len() as f32;
        for i in open {
            let add = share.min(cap - grown[i]);
            grown[i] += add;
            left -= add;
        }
    }
    let mut at = placed.x[0];
    for (i, g) in grown.iter().enumerate() {
        at += g;
        placed.x[i + 1] = at;
    }
    placed.width += extra - left;
}

/// Places `lanes` lifelines: gap `i` (between lanes `i` and `i + 1`) is at least `min_gap[i]`
/// (a missing entry counts as 0) and at least what the needs ask; `edge` is the least room left
/// of the first lane and right of the last.
///
/// An arrow between neighbours widens their gap; one spanning several lanes, if the gaps it
/// crosses are still too narrow, widens each of them by an equal share of what is missing
/// (after all neighbour arrows, shortest spans first, so a long arrow does not push apart lanes
/// a short one already separated enough).
pub fn place(lanes: usize, min_gap: &[f32], edge: f32, needs: &[Need]) -> Placed {
    if lanes == 0 {
        return Placed {
            x: Vec::new(),
            width: edge * 2.0,
        };
    }
    let mut gaps: Vec<f32> = (0..lanes - 1)
        .map(|i| min_gap.get(i).copied().unwrap_or(0.0).max(0.0))
        .collect();
    let mut headers = vec![0.0f32; lanes];
    let mut spans: Vec<(usize, usize, f32)> = Vec::new();
    for need in needs {
        match *need {
            Need::Arrow { from, to, width } => {
                let (a, b) = (from.min(to), from.max(to));
                if a == b || b >= lanes || !width.is_finite() {
                    continue;
                }
                if b == a + 1 {
                    gaps[a] = gaps[a].max(width);
                } else {
                    spans.push((a, b, width));
                }
            }
            Need::Header { lane, width } if lane < lanes && width.is_finite() => {
                headers[lane] = headers[lane].max(width);
            }
            _ => {}
        }
    }
    for i in 0..lanes.saturating_sub(1) {
        if headers[i] > 0.0 || headers[i + 1] > 0.0 {
            let touching = (headers[i] + headers[i + 1]) / 2.0 + HEADER_SPACE;
            gaps[i] = gaps[i].max(touching);
        }
    }
    spans.sort_by_key(|s| s.1 - s.0);
    for (a, b, width) in spans {
        let have: f32 = gaps[a..b].iter().sum();
        if width > have {
            let share = (width - have) / (b - a) as f32;
            for g in &mut gaps[a..b] {
                *g += share;
            }
        }
    }

    // Centres from the first lane, then the room the boxes centred on them need at each edge.
    let mut x = Vec::with_capacity(lanes);
    let mut at = 0.0f32;
    x.push(at);
    for g in &gaps {
        at += g;
        x.push(at);
    }
    let mut left = edge;
    let mut right = x[lanes - 1] + edge;
    let mut widen = |lane: usize, width: f32| {
        if width <= 0.0 {
            return;
        }
        let half = width / 2.0 + HEADER_SPACE;
        left = left.max(half - x[lane]);
        right = right.max(x[lane] + half);
    };
    for (lane, &width) in headers.iter().enumerate() {
        widen(lane, width);
    }
    for need in needs {
        if let Need::Note { lane, width } = *need
            && lane < lanes
            && width.is_finite()
        {
            right = right.max(width + 2.0 * HEADER_SPACE - left);
        }
    }
    Placed {
        width: right + left,
        x: x.iter().map(|x| x + left).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::{Need, place};

    #[test]
    fn each_gap_fits_the_widest_label_between_its_lanes() {
        let placed = place(
            3,
            &[100.0, 100.0],
            10.0,
            &[
                Need::Arrow {
                    from: 1,
                    to: 0,
                    width: 300.0,
                },
                Need::Arrow {
                    from: 0,
                    to: 1,
                    width: 120.0,
                },
            ],
        );
        assert_eq!(placed.x, [10.0, 310.0, 410.0]);
        assert_eq!(placed.width, 420.0);
    }

    #[test]
    fn a_long_arrow_widens_only_what_is_missing_over_the_gaps_it_crosses() {
        let arrow = |from, to, width| Need::Arrow { from, to, width };
        let placed = place(
            4,
            &[100.0, 100.0, 100.0],
            0.0,
            &[arrow(0, 3, 330.0), arrow(1, 2, 150.0)],
        );
        // 100 + 150 + 100 = 350 already holds 330: nothing more.
        assert_eq!(placed.x, [0.0, 100.0, 250.0, 350.0]);
        let placed = place(3, &[100.0, 100.0], 0.0, &[arrow(0, 2, 300.0)]);
        assert_eq!(placed.x, [0.0, 150.0, 300.0]);
    }

    #[test]
    fn headers_do_not_touch_and_notes_stay_inside() {
        let placed = place(
            2,
            &[50.0],
            5.0,
            &[
                Need::Header {
                    lane: 0,
                    width: 100.0,
                },
                Need::Header {
                    lane: 1,
                    width: 60.0,
                },
                Need::Note {
                    lane: 1,
                    width: 200.0,
                },
            ],
        );
        // Headers: 50 + 30 + 8 apart; the first one's half and the space left of it.
        assert_eq!(placed.x, [58.0, 146.0]);
        // The note and the space each side of it.
        assert_eq!(placed.width, 216.0);
        // A note wider than the lanes widens the diagram on the right.
        let wide = place(
            1,
            &[],
            0.0,
            &[Need::Note {
                lane: 0,
                width: 84.0,
            }],
        );
        assert_eq!((wide.x[0], wide.width), (0.0, 100.0));
    }

    #[test]
    fn spare_room_is_shared_by_the_narrow_gaps() {
        let mut placed = place(3, &[100.0, 300.0], 0.0, &[]);
        super::spread(&mut placed, 500.0, 250.0);
        assert_eq!(placed.x, [0.0, 250.0, 550.0]);
        assert_eq!(placed.width, 550.0);
    }

    #[test]
    fn needs_out_of_range_are_ignored() {
        let placed = place(
            2,
            &[],
            0.0,
            &[
                Need::Arrow {
                    from: 0,
                    to: 7,
                    width: 1e9,
                },
                Need::Note {
                    lane: 9,
                    width: 1e9,
                },
                Need::Arrow {
                    from: 0,
                    to: 1,
                    width: f32::NAN,
                },
            ],
        );
        assert_eq!(placed.x, [0.0, 0.0]);
        assert!(place(0, &[], 4.0, &[]).x.is_empty());
    }
}

//! How much of a browser frame the viewer's own work (reading a page's trace, the findings'
//! steps) may take, so that the frame with the drawing stays under a 60 Hz frame.
//!
//! The browser has no threads: that work runs in the frames, after the panels have been
//! built (so their time this frame is known) and before egui tessellates and paints them
//! (whose time is taken to be the last frame's: the same rows, give or take a few). While the
//! reader scrolls, points or types, the work gets what those leave of [`FRAME_MS`], at most
//! [`ACTING_WORK_MS`] (a frame that a preempted core or a slice of work longer than asked for
//! makes late by a few milliseconds still makes 60 Hz); in frames nobody acts in,
//! [`MAX_WORK_MS`] (a long frame is seen by no one, and the findings are ready sooner). Pure
//! arithmetic, so it is tested natively; `ui::web` keeps the clocks.

/// The frame our work and the drawing share: 60 Hz's 16.7 ms, less a margin for what the
/// browser does around them and for a slice of work that overruns what it was given.
pub const FRAME_MS: f64 = 12.0;
/// At least this much of every frame goes to our work, however long the drawing.
pub const MIN_WORK_MS: f64 = 1.0;
/// At most this much while the reader acts, however short the drawing: scrolling a
/// 100,000-event trace while it loads draws in about 4 ms a frame (panels 2, painting 2, in
/// headless Chromium). On a loaded machine a frame's length is mostly how long the page's
/// thread waits for a core (tests/web/trace-frames.mjs: long frames of 16 to 33 ms ran 4 to
/// 11 ms; given a core whenever it asks, none was long), and the less a frame runs, the
/// less often it is preempted: 2 ms of work keeps a frame's run near 5 ms.
pub const ACTING_WORK_MS: f64 = 2.0;
/// This much while nobody acts.
pub const MAX_WORK_MS: f64 = 6.0;
/// How long after the reader's last input the frames are kept short (a wheel step scrolls
/// smoothly over the frames after it, with no input of their own).
pub const QUIET_S: f64 = 0.5;

/// Our work's time in a frame, in milliseconds: `panels_ms` is how long this frame's panels
/// took (measured), `paint_ms` how long the last frame's tessellation and painting took (the
/// estimate of this one's), `quiet` whether nobody has acted for [`QUIET_S`].
pub fn work_ms(quiet: bool, panels_ms: f64, paint_ms: f64) -> f64 {
    if quiet {
        return MAX_WORK_MS;
    }
    let drawing = panels_ms.max(0.0) + paint_ms.max(0.0);
    (FRAME_MS - drawing).clamp(MIN_WORK_MS, ACTING_WORK_MS)
}

/// Whether the frames are quiet at egui's time `now` (seconds) when the reader last acted at
/// `last_input`.
pub fn is_quiet(now: f64, last_input: Option<f64>) -> bool {
    last_input.is_none_or(|t| now - t > QUIET_S)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scrolling_frame_gets_what_its_panels_and_the_last_paint_leave() {
        // 7.5 ms of panels this frame, 3 ms painting the last one: 1.5 ms of the 12.
        assert_eq!(work_ms(false, 7.5, 3.0), 1.5);
        // The panels' own time counts: the same paint with heavier panels leaves less.
        assert_eq!(work_ms(false, 7.75, 3.0), 1.25);
        // The painting's too.
        assert_eq!(work_ms(false, 7.5, 3.25), 1.25);
    }

    #[test]
    fn the_work_gets_at_least_the_least_and_at_most_the_most() {
        assert_eq!(work_ms(false, 14.0, 3.0), MIN_WORK_MS);
        // While the reader acts, less than in a quiet frame however light the drawing.
        assert_eq!(work_ms(false, 0.5, 0.5), ACTING_WORK_MS);
        assert!(work_ms(false, 0.5, 0.5) < work_ms(true, 0.5, 0.5));
        // A clock that goes backwards (or a first frame with no measure) gives no more.
        assert_eq!(work_ms(false, -3.0, -3.0), ACTING_WORK_MS);
    }

    #[test]
    fn an_acting_frame_runs_little_however_light_its_drawing() {
        // The drawing of a frame while scrolling during loading (panels 2 ms, painting 2):
        // with the work, the frame runs about 6 ms, under half a 60 Hz frame, which leaves
        // the rest for waiting for a core on a loaded machine.
        let frame = 2.0 + 2.0 + work_ms(false, 2.0, 2.0);
        assert!(frame <= 6.0, "{frame}");
        assert!(work_ms(false, 0.0, 0.0) <= 2.0);
    }

    #[test]
    fn a_quiet_frame_gets_the_most() {
        assert_eq!(work_ms(true, 10.0, 5.0), MAX_WORK_MS);
        assert!(is_quiet(10.0, None));
        assert!(is_quiet(10.0, Some(9.0)));
        assert!(!is_quiet(10.0, Some(9.8)));
    }
}

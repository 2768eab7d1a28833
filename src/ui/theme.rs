//! Colours and strokes of the diagram, in one place so the legend and the painter agree.
//!
//! Problems get distinct hues that stay apart for common colour-vision deficiencies (red for
//! errors, magenta for invalid lines, orange for unanswered requests) and also a distinct
//! line: problems are drawn thicker, notifications dashed, notes as boxes.

use egui::{Color32, Visuals};

use crate::analysis::diagram::{Status, Style};

/// The palette of one theme (dark or light).
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    pub request: Color32,
    pub response: Color32,
    pub notification: Color32,
    pub llm: Color32,
    pub note_fill: Color32,
    pub note_text: Color32,
    pub process: Color32,
    pub error: Color32,
    pub invalid: Color32,
    pub unanswered: Color32,
    pub problem: Color32,
    pub lifeline: Color32,
    pub selection: Color32,
    pub pair: Color32,
    pub chain: Color32,
    pub lesson: Color32,
    pub muted: Color32,
    pub background: Color32,
}

impl Palette {
    pub fn for_visuals(v: &Visuals) -> Palette {
        if v.dark_mode {
            Palette {
                request: Color32::from_rgb(0x9c, 0xc8, 0xff),
                response: Color32::from_rgb(0x7f, 0xd8, 0xa0),
                notification: Color32::from_rgb(0xc8, 0xb4, 0xff),
                llm: Color32::from_rgb(0x5c, 0xd4, 0xd0),
                note_fill: Color32::from_rgb(0x3a, 0x3a, 0x28),
                note_text: Color32::from_rgb(0xe8, 0xe0, 0xb0),
                process: Color32::from_rgb(0xa0, 0xa0, 0xa0),
                error: Color32::from_rgb(0xff, 0x55, 0x55),
                invalid: Color32::from_rgb(0xff, 0x5c, 0xe0),
                unanswered: Color32::from_rgb(0xff, 0x9d, 0x2e),
                problem: Color32::from_rgb(0xff, 0xc8, 0x3c),
                lifeline: Color32::from_gray(0x5a),
                selection: Color32::from_rgba_unmultiplied(0x40, 0x80, 0xff, 0x50),
                pair: Color32::from_rgba_unmultiplied(0x40, 0x80, 0xff, 0x28),
                chain: Color32::from_rgba_unmultiplied(0x5c, 0xd4, 0xd0, 0x1c),
                lesson: Color32::from_rgb(0xf2, 0xe6, 0xb0),
                muted: Color32::from_gray(0x90),
                background: v.panel_fill,
            }
        } else if is_projector(v) {
            // A projector washes out pale lines and grey text: darker ones, same hues.
            Palette {
                lifeline: Color32::from_gray(0x50),
                muted: Color32::from_gray(0x30),
                note_text: Color32::BLACK,
                ..Palette::for_visuals(&Visuals::light())
            }
        } else {
            Palette {
                request: Color32::from_rgb(0x12, 0x4e, 0xb0),
                response: Color32::from_rgb(0x14, 0x7a, 0x3c),
                notification: Color32::from_rgb(0x63, 0x3c, 0xb8),
                llm: Color32::from_rgb(0x00, 0x7a, 0x78),
                note_fill: Color32::from_rgb(0xff, 0xf6, 0xc8),
                note_text: Color32::from_rgb(0x40, 0x38, 0x10),
                process: Color32::from_gray(0x60),
                error: Color32::from_rgb(0xcc, 0x10, 0x10),
                invalid: Color32::from_rgb(0xc0, 0x10, 0xa0),
                unanswered: Color32::from_rgb(0xd0, 0x62, 0x00),
                problem: Color32::from_rgb(0xa0, 0x78, 0x00),
                lifeline: Color32::from_gray(0xb0),
                selection: Color32::from_rgba_unmultiplied(0x30, 0x70, 0xff, 0x40),
                pair: Color32::from_rgba_unmultiplied(0x30, 0x70, 0xff, 0x20),
                chain: Color32::from_rgba_unmultiplied(0x00, 0x7a, 0x78, 0x18),
                lesson: Color32::from_rgb(0x5a, 0x40, 0x00),
                muted: Color32::from_gray(0x70),
                background: v.panel_fill,
            }
        }
    }

    /// The colour of a row: its status when something is wrong, else its style.
    pub fn row_color(&self, style: Style, status: &Status) -> Color32 {
        match status {
            Status::Error => self.error,
            Status::Invalid => self.invalid,
            Status::Unanswered | Status::Cancelled | Status::Orphan => self.unanswered,
            Status::Problem => self.problem,
            Status::Ok => match style {
                Style::Request => self.request,
                Style::Response => self.response,
                Style::Notification => self.notification,
                Style::Error => self.error,
                Style::Invalid => self.invalid,
                Style::LlmRequest | Style::LlmResponse => self.llm,
                Style::Note => self.note_text,
                Style::Process | Style::Stderr => self.process,
            },
        }
    }
}

/// Whether a style is drawn with a dashed line (notifications; responses come back dashed as
/// in UML).
pub fn dashed(style: Style) -> bool {
    matches!(
        style,
        Style::Notification | Style::Response | Style::Error | Style::LlmResponse
    )
}

/// Line width of a row.
pub fn width(status: &Status) -> f32 {
    if status.is_ok() { 1.4 } else { 2.4 }
}

/// Whether `visuals` are the projector's (the diagram's palette darkens its faint lines then).
pub fn is_projector(visuals: &Visuals) -> bool {
    !visuals.dark_mode
        && visuals.override_text_color == Some(Color32::BLACK)
        && visuals.panel_fill == Color32::WHITE
}

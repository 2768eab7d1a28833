//! Which diagram rows are shown, and in what order: all of them, or a sorted subset (the rows
//! passing the list's filter, the rows revealed so far in teaching mode). Positions in the set
//! map to rows by arithmetic or binary search, so a million-row set costs nothing per frame.

use crate::analysis::diagram::Diagram;

/// The rows the diagram shows, in order: all of them, or a sorted subset (a filter, or the
/// rows revealed so far in teaching mode).
#[derive(Debug, Clone, Copy)]
pub enum RowSet<'a> {
    /// Rows `0..n`.
    All(usize),
    /// These rows (sorted row indices).
    Subset(&'a [usize]),
}

impl RowSet<'_> {
    pub fn len(&self) -> usize {
        match self {
            RowSet::All(n) => *n,
            RowSet::Subset(rows) => rows.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row at position `pos`.
    pub fn get(&self, pos: usize) -> usize {
        match self {
            RowSet::All(_) => pos,
            RowSet::Subset(rows) => rows[pos],
        }
    }

    /// The position of `row`, if it is shown.
    pub fn position(&self, row: usize) -> Option<usize> {
        match self {
            RowSet::All(n) => (row < *n).then_some(row),
            RowSet::Subset(rows) => rows.binary_search(&row).ok(),
        }
    }
}

/// Where the shown rows sit, in lines of one row's height: a row takes one line, and one more
/// for each arrow inside its exchange ([`Diagram::hops`]: the user's words above a recorded
/// host's request, a tool the host runs itself, the API's own MCP client's steps). Rows with
/// hops are few, so they are a sorted table and a position's line is a binary search away.
#[derive(Debug, Clone, Default)]
pub struct Lines {
    /// `(position, its block's first line, hops in the block)` of the shown rows with hops.
    blocks: Vec<(usize, usize, usize)>,
    rows: usize,
    hops: usize,
}

impl Lines {
    pub fn new(diagram: &Diagram, rows: RowSet<'_>) -> Lines {
        let mut blocks = Vec::new();
        let mut hops = 0;
        for (row, n) in diagram.hop_rows() {
            if let Some(pos) = rows.position(row) {
                blocks.push((pos, pos + hops, n));
                hops += n;
            }
        }
        Lines {
            blocks,
            rows: rows.len(),
            hops,
        }
    }

    /// The first line of the block of the row at `pos` (its leads, or its own arrow).
    pub fn top(&self, pos: usize) -> usize {
        let k = self.blocks.partition_point(|b| b.0 < pos);
        pos + self.blocks[..k].last().map_or(0, |b| b.1 - b.0 + b.2)
    }

    /// How many lines the row at `pos` takes: 1, and 1 per hop.
    pub fn height(&self, pos: usize) -> usize {
        match self.blocks.binary_search_by_key(&pos, |b| b.0) {
            Ok(k) => 1 + self.blocks[k].2,
            Err(_) => 1,
        }
    }

    /// All the lines.
    pub fn total(&self) -> usize {
        self.rows + self.hops
    }

    /// The positions of the rows in view between screen offsets `y0` and `y1` (lines
    /// `row_h` high), one more below for a row half in view.
    pub fn in_view(&self, y0: f32, y1: f32, row_h: f32) -> (usize, usize) {
        let line = |y: f32| (y / row_h).max(0.0) as usize;
        let last = (self.pos_at(line(y1.ceil())) + 2).min(self.rows);
        (self.pos_at(line(y0.floor())).min(last), last)
    }

    /// The position of the row whose block holds line `line` (`rows`, one past the last row,
    /// for a line below them all).
    pub fn pos_at(&self, line: usize) -> usize {
        let k = self.blocks.partition_point(|b| b.1 <= line);
        let pos = match self.blocks[..k].last() {
            None => line,
            Some(&(pos, top, n)) if line <= top + n => pos,
            Some(&(pos, top, n)) => pos + 1 + (line - top - n - 1),
        };
        pos.min(self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::Lines;

    /// Rows 0..6 with two hops on row 1 and one on row 4: lines 0 | 1 2 3 | 4 | 5 | 6 7 | 8.
    #[test]
    fn lines_place_taller_blocks_and_find_them_again() {
        let lines = Lines {
            blocks: vec![(1, 1, 2), (4, 6, 1)],
            rows: 6,
            hops: 3,
        };
        let tops: Vec<usize> = (0..6).map(|p| lines.top(p)).collect();
        assert_eq!(tops, [0, 1, 4, 5, 6, 8]);
        let heights: Vec<usize> = (0..6).map(|p| lines.height(p)).collect();
        assert_eq!(heights, [1, 3, 1, 1, 2, 1]);
        assert_eq!(lines.total(), 9);
        let at: Vec<usize> = (0..11).map(|l| lines.pos_at(l)).collect();
        assert_eq!(at, [0, 1, 1, 1, 2, 3, 4, 4, 5, 6, 6]);
        // Every line belongs to the block that starts at or before it.
        for line in 0..lines.total() {
            let pos = lines.pos_at(line);
            assert!(lines.top(pos) <= line && line < lines.top(pos) + lines.height(pos));
        }
        let none = Lines {
            rows: 3,
            ..Lines::default()
        };
        assert_eq!((none.top(2), none.pos_at(2), none.pos_at(7)), (2, 2, 3));
    }
}

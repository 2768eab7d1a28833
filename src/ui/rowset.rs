//! Which diagram rows are shown, and in what order: all of them, or a sorted subset (the rows
//! passing the list's filter, the rows revealed so far in teaching mode). Positions in the set
//! map to rows by arithmetic or binary search, so a million-row set costs nothing per frame.

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

//! Column-oriented result tables, handed to Python as Arrow tables.

/// One column of values.
#[derive(Clone, Debug)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
}

/// Named columns of equal length.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    /// Adds a column.
    pub fn push(&mut self, name: &str, c: Column) {
        self.columns.push((name.to_string(), c));
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| match c {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
        })
    }
}

//! The one error type of the engine: what went wrong and which config field
//! it concerns, so a user knows what to fix.

use std::fmt;

/// An invalid config or input, naming the field and the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the offending field, e.g. `topology.groups`.
    pub field: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl ConfigError {
    /// An error about `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError { field: field.into(), message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// Shorthand for results carrying a [`ConfigError`].
pub type Result<T> = std::result::Result<T, ConfigError>;

//! Reads the `{:?}` rendering of a derived-`Debug` value back as JSON.
//!
//! The engine's config types derive `Debug` but not `Serialize`, and a
//! binding crate may not implement a foreign trait for them, so the resolved
//! config is read from their `Debug` text (see `resolved.rs`). The grammar is
//! what `#[derive(Debug)]` and serde_json's own `Debug` print:
//!
//! - `Name { field: value, .. }` (a struct) becomes an object of its fields;
//! - `[a, b]` a list, `{"k": v}` a map (keys are strings);
//! - `Some(x)` is `x`, `None` and `Null` are `null`;
//! - serde_json's `String("s")`, `Number(1)`, `Bool(true)`, `Array [..]`,
//!   `Object {..}` are the values they wrap;
//! - strings in Rust's escaped form, integers, floats (`1.5`, `1e-12`),
//!   `true` and `false`;
//! - an enum variant (a choice made by name) as its name in kebab case:
//!   `MinHash` is `min-hash`, `Adaptive(3)` is `adaptive-3`. Two cases are
//!   guesses the caller checks: a variant named `None` reads as `null`, and
//!   an engine name that is not the kebab case of its variant would parse
//!   back as a different config, which `resolved.rs` refuses.
//!
//! Anything else (a float JSON cannot hold, a variant with other payloads)
//! is an error naming it, so a config type this reader does not understand
//! fails loudly instead of being written down wrong. The crate has no Rust test harness
//! (it would need libpython at link time): tests/python/test_provenance.py
//! exercises this reader through `resolved_config`.

use serde_json::{Map, Number, Value};

/// Parses a whole `Debug` rendering into a JSON value.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut reader = Reader { chars: text.chars().collect(), at: 0 };
    let value = reader.value()?;
    reader.skip_spaces();
    if reader.at != reader.chars.len() {
        return Err(reader.unexpected("the end of the value"));
    }
    Ok(value)
}

struct Reader {
    chars: Vec<char>,
    at: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn unexpected(&self, wanted: &str) -> String {
        let rest: String = self.chars[self.at.min(self.chars.len())..].iter().take(40).collect();
        format!("expected {wanted} at character {}, found {rest:?}", self.at)
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        self.skip_spaces();
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.unexpected(&format!("{c:?}")))
        }
    }

    /// True (and consumed) when the next non-space character is `c`.
    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_spaces();
        match self.peek() {
            Some('"') => self.string().map(Value::String),
            Some('[') => self.list(),
            Some('{') => self.map(),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => self.named(),
            _ => Err(self.unexpected("a value")),
        }
    }

    fn ident(&mut self) -> String {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    /// A value that starts with a name: a struct, `Some(..)`, a serde_json
    /// wrapper, a boolean or `None`.
    fn named(&mut self) -> Result<Value, String> {
        let start = self.at;
        let name = self.ident();
        match name.as_str() {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            "None" | "Null" => return Ok(Value::Null),
            "Some" | "String" | "Number" | "Bool" => {
                self.expect('(')?;
                let inner = self.value()?;
                self.expect(')')?;
                return Ok(inner);
            }
            "Array" => return self.list(),
            "Object" => return self.map(),
            _ => {}
        }
        self.skip_spaces();
        match self.peek() {
            Some('{') => self.fields(),
            // A choice made by name (an enum): its config name is taken to be the
            // variant's name in kebab case, `Adaptive(3)` giving `adaptive-3`;
            // resolved.rs proves the guess by parsing the result back.
            Some('(') if name.starts_with(char::is_uppercase) => {
                self.at += 1;
                let argument = self.value()?;
                self.expect(')')?;
                match argument {
                    Value::Number(n) => Ok(Value::String(format!("{}-{n}", kebab_case(&name)))),
                    _ => {
                        self.at = start;
                        Err(self.unexpected("an enum variant with one number"))
                    }
                }
            }
            _ if name.starts_with(char::is_uppercase) => Ok(Value::String(kebab_case(&name))),
            _ => {
                self.at = start;
                Err(self.unexpected("a struct, list, map, string, number, Option or enum variant"))
            }
        }
    }

    /// `{ field: value, .. }` of a struct.
    fn fields(&mut self) -> Result<Value, String> {
        self.expect('{')?;
        let mut map = Map::new();
        if self.eat('}') {
            return Ok(Value::Object(map));
        }
        loop {
            self.skip_spaces();
            let field = self.ident();
            if field.is_empty() {
                return Err(self.unexpected("a field name"));
            }
            self.expect(':')?;
            let value = self.value()?;
            map.insert(field, value);
            if self.eat('}') {
                return Ok(Value::Object(map));
            }
            self.expect(',')?;
        }
    }

    fn list(&mut self) -> Result<Value, String> {
        self.expect('[')?;
        let mut items = Vec::new();
        if self.eat(']') {
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            if self.eat(']') {
                return Ok(Value::Array(items));
            }
            self.expect(',')?;
        }
    }

    /// `{"key": value, ..}` of a map with string keys.
    fn map(&mut self) -> Result<Value, String> {
        self.expect('{')?;
        let mut map = Map::new();
        if self.eat('}') {
            return Ok(Value::Object(map));
        }
        loop {
            self.skip_spaces();
            let key = self.string()?;
            self.expect(':')?;
            let value = self.value()?;
            map.insert(key, value);
            if self.eat('}') {
                return Ok(Value::Object(map));
            }
            self.expect(',')?;
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')) {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        if let Ok(n) = text.parse::<u64>() {
            return Ok(Value::Number(n.into()));
        }
        if let Ok(n) = text.parse::<i64>() {
            return Ok(Value::Number(n.into()));
        }
        match text.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(n) => Ok(Value::Number(n)),
            None => {
                self.at = start;
                Err(self.unexpected("a finite number"))
            }
        }
    }

    /// A string in Rust's `Debug` form: quotes, backslash escapes, `\u{..}`.
    fn string(&mut self) -> Result<String, String> {
        if self.peek() != Some('"') {
            return Err(self.unexpected("a string"));
        }
        self.at += 1;
        let mut out = String::new();
        loop {
            let c = self.peek().ok_or_else(|| self.unexpected("the end of a string"))?;
            self.at += 1;
            match c {
                '"' => return Ok(out),
                '\\' => out.push(self.escape()?),
                c => out.push(c),
            }
        }
    }

    fn escape(&mut self) -> Result<char, String> {
        let c = self.peek().ok_or_else(|| self.unexpected("an escape"))?;
        self.at += 1;
        Ok(match c {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            '0' => '\0',
            '\\' | '"' | '\'' => c,
            'u' => {
                self.expect('{')?;
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    self.at += 1;
                }
                let hex: String = self.chars[start..self.at].iter().collect();
                self.expect('}')?;
                u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).ok_or_else(|| self.unexpected("a unicode escape"))?
            }
            _ => return Err(self.unexpected("a known escape")),
        })
    }
}

/// `AdaptiveMinimal` as `adaptive-minimal`.
pub fn kebab_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

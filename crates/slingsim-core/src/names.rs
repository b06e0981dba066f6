//! Names as types: every choice a config makes by name (routing mode,
//! congestion control, topology family, frame format, ...) is an enum with
//! one registry of its names. The config deserializes straight into the
//! enum, so a bad name fails where it is read, with an error listing the
//! valid names, and nothing downstream compares strings.

use serde::de::{Deserializer, Error};
use serde::{Deserialize, Serializer};

/// A choice made by name in a config.
pub trait Named: Copy + PartialEq + 'static {
    /// What the name chooses, for errors ("routing algorithm").
    const WHAT: &'static str;
    /// Every name and what it stands for, in the order the docs list them.
    const REGISTRY: &'static [(&'static str, Self)];

    /// The name of this choice in configs and results.
    fn name(self) -> &'static str {
        Self::REGISTRY.iter().find(|(_, v)| *v == self).map(|(n, _)| *n).expect("every variant is registered")
    }

    /// The choice named `name`, or an error listing the valid names.
    fn from_name(name: &str) -> Result<Self, String> {
        Self::REGISTRY.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).ok_or_else(|| {
            format!("unknown {} {name:?}; choose one of: {}", Self::WHAT, Self::names().join(", "))
        })
    }

    /// Every valid name.
    fn names() -> Vec<&'static str> {
        Self::REGISTRY.iter().map(|(n, _)| *n).collect()
    }
}

/// Deserializes a [`Named`] choice from its name.
pub fn deserialize<'de, D: Deserializer<'de>, T: Named>(d: D) -> Result<T, D::Error> {
    let name = String::deserialize(d)?;
    T::from_name(&name).map_err(D::Error::custom)
}

/// Serializes a [`Named`] choice as its name.
pub fn serialize<S: Serializer, T: Named>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v.name())
}

/// Implements `Deserialize` and `Serialize` for a [`Named`] type through
/// its registry.
#[macro_export]
macro_rules! named_serde {
    ($t:ty) => {
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                $crate::names::deserialize(d)
            }
        }
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                $crate::names::serialize(self, s)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Fruit {
        Apple,
        Pear,
    }

    impl Named for Fruit {
        const WHAT: &'static str = "fruit";
        const REGISTRY: &'static [(&'static str, Self)] = &[("apple", Fruit::Apple), ("pear", Fruit::Pear)];
    }
    named_serde!(Fruit);

    #[test]
    fn names_round_trip_and_errors_list_the_choices() {
        assert_eq!(Fruit::from_name("pear"), Ok(Fruit::Pear));
        assert_eq!(Fruit::Apple.name(), "apple");
        let e = Fruit::from_name("plum").unwrap_err();
        assert_eq!(e, "unknown fruit \"plum\"; choose one of: apple, pear");
        let f: Fruit = serde_json::from_str("\"apple\"").unwrap();
        assert_eq!(f, Fruit::Apple);
        assert_eq!(serde_json::to_string(&Fruit::Pear).unwrap(), "\"pear\"");
        assert!(serde_json::from_str::<Fruit>("\"kiwi\"").unwrap_err().to_string().contains("choose one of: apple, pear"));
    }
}

//! Identifiers with their own types: a channel, a switch, an endpoint (one
//! NIC rail), a node and a packet are all numbered from 0, and a node id
//! passed where an endpoint id is expected is a compile error, not a
//! wrong result. Each is a `u32` in memory; [`IdVec`] is a vector indexed
//! by one of them.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// What every identifier type offers.
pub trait Id: Copy + Eq + 'static {
    /// The id of position `i`.
    fn from_index(i: usize) -> Self;
    /// The position it names.
    fn index(self) -> usize;
}

/// Defines an identifier type: a transparent `u32` with `NONE` for "no such".
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
        #[repr(transparent)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// No such thing (an unset field, the end of a list).
            pub const NONE: $name = $name(u32::MAX);

            /// True for [`Self::NONE`].
            #[inline]
            pub fn is_none(self) -> bool {
                self.0 == u32::MAX
            }
        }

        impl Id for $name {
            #[inline]
            fn from_index(i: usize) -> Self {
                $name(i as u32)
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if self.is_none() {
                    write!(f, concat!($what, " none"))
                } else {
                    write!(f, concat!($what, " {}"), self.0)
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// One direction of a link (a NIC rail or a switch port's output).
    ChannelId, "channel"
);
id_type!(
    /// A switch (router).
    SwitchId, "switch"
);
id_type!(
    /// An endpoint: one NIC rail on one switch port.
    EndpointId, "endpoint"
);
id_type!(
    /// A node: a host with one endpoint per rail.
    NodeId, "node"
);
id_type!(
    /// A packet's slot in the engine's pool.
    PacketId, "packet"
);

/// A vector indexed by an identifier type `I`.
#[derive(Clone, PartialEq, Eq)]
pub struct IdVec<I, T> {
    items: Vec<T>,
    id: PhantomData<fn() -> I>,
}

impl<I: Id, T> IdVec<I, T> {
    /// An empty vector.
    pub fn new() -> Self {
        IdVec { items: Vec::new(), id: PhantomData }
    }

    /// `n` copies of `v`.
    pub fn filled(v: T, n: usize) -> Self
    where
        T: Clone,
    {
        IdVec { items: vec![v; n], id: PhantomData }
    }

    /// Appends `v`; returns its id.
    pub fn push(&mut self, v: T) -> I {
        self.items.push(v);
        I::from_index(self.items.len() - 1)
    }

    /// The element of `id`, if there is one.
    #[inline]
    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(id.index())
    }

    /// How many elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The elements in id order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// The elements in id order, writable.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }

    /// Every id with its element.
    pub fn iter_ids(&self) -> impl Iterator<Item = (I, &T)> + '_ {
        self.items.iter().enumerate().map(|(i, v)| (I::from_index(i), v))
    }

    /// Every id.
    pub fn ids(&self) -> impl Iterator<Item = I> + 'static {
        (0..self.items.len()).map(I::from_index)
    }

    /// Grows or shrinks to `n` elements, new ones `v`.
    pub fn resize(&mut self, n: usize, v: T)
    where
        T: Clone,
    {
        self.items.resize(n, v);
    }

    /// Gives back spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
    }

    /// The elements as a slice (positions are the ids' indices).
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }
}

impl<I: Id, T> Default for IdVec<I, T> {
    fn default() -> Self {
        IdVec::new()
    }
}

impl<I: Id, T> From<Vec<T>> for IdVec<I, T> {
    fn from(items: Vec<T>) -> Self {
        IdVec { items, id: PhantomData }
    }
}

impl<I: Id, T> FromIterator<T> for IdVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(it: It) -> Self {
        IdVec { items: it.into_iter().collect(), id: PhantomData }
    }
}

impl<I: Id, T> Index<I> for IdVec<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, id: I) -> &T {
        &self.items[id.index()]
    }
}

impl<I: Id, T> IndexMut<I> for IdVec<I, T> {
    #[inline]
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.index()]
    }
}

impl<'a, I: Id, T> IntoIterator for &'a IdVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<I, T: fmt::Debug> fmt::Debug for IdVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_index_only_their_own_vectors() {
        let mut switch_of: IdVec<EndpointId, SwitchId> = IdVec::new();
        let e = switch_of.push(SwitchId(3));
        assert_eq!(e, EndpointId(0));
        assert_eq!(switch_of[e], SwitchId(3));
        // `switch_of[NodeId(0)]` does not compile: a node is not an endpoint.
        assert!(SwitchId::NONE.is_none());
        assert_eq!(format!("{:?}", NodeId(7)), "node 7");
        assert_eq!(std::mem::size_of::<ChannelId>(), 4);
    }
}

//! Parallel iteration over a [`SoaMap`] (feature `rayon`): the allocators'
//! [`ParIter`] and [`ParIterMut`], over keys instead of ids.

use rayon::iter::IntoParallelIterator;

use super::SoaMap;
use crate::id::Id;
use crate::par::{ParIter, ParIterMut};
use crate::storage::Record;

impl<K: Id, T: Record> SoaMap<K, T> {
    /// `(key, fields)` of every entry, in dense order, as an indexed
    /// parallel iterator. Needs every field `Sync`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// use rayon::prelude::*;
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// for i in 0..100 {
    ///     burning.insert(units.insert(Unit { hp: i }), Burning { dps: 1.0, left: i as f32 });
    /// }
    /// let total: f32 = burning.par_iter().map(|(_, b)| *b.left).sum();
    /// assert_eq!(total, 4950.0);
    /// let keys: Vec<UnitId> = burning.par_iter().map(|(key, _)| key).collect();
    /// assert_eq!(keys, burning.keys());
    /// ```
    pub fn par_iter<'a>(&'a self) -> ParIter<'a, T, K>
    where
        T::Values: Sync,
        T::Ref<'a>: Send,
    {
        ParIter { iter: self.iter() }
    }

    /// `(key, mutable fields)` of every entry, in dense order, as an
    /// indexed parallel iterator. Needs every field `Send`.
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaMap};
    /// use rayon::prelude::*;
    /// # #[derive(SoaAllocator)] pub struct Unit { pub hp: i32 }
    /// # #[derive(SoaAllocator)] pub struct Burning { pub dps: f32, pub left: f32 }
    ///
    /// let mut units = UnitAllocator::new();
    /// let mut burning = SoaMap::<UnitId, Burning>::new();
    /// let a = units.insert(Unit { hp: 1 });
    /// burning.insert(a, Burning { dps: 2.0, left: 10.0 });
    /// burning.par_iter_mut().for_each(|(_, b)| *b.left -= *b.dps);
    /// assert_eq!(*burning.get(a).unwrap().left, 8.0);
    /// ```
    pub fn par_iter_mut<'a>(&'a mut self) -> ParIterMut<'a, T, K>
    where
        T::Values: Send,
        T::Mut<'a>: Send,
    {
        ParIterMut {
            iter: self.iter_mut(),
        }
    }
}

impl<'a, K: Id, T: Record + 'a> IntoParallelIterator for &'a SoaMap<K, T>
where
    T::Values: Sync,
    T::Ref<'a>: Send,
{
    type Item = (K, T::Ref<'a>);
    type Iter = ParIter<'a, T, K>;

    fn into_par_iter(self) -> ParIter<'a, T, K> {
        self.par_iter()
    }
}

impl<'a, K: Id, T: Record + 'a> IntoParallelIterator for &'a mut SoaMap<K, T>
where
    T::Values: Send,
    T::Mut<'a>: Send,
{
    type Item = (K, T::Mut<'a>);
    type Iter = ParIterMut<'a, T, K>;

    fn into_par_iter(self) -> ParIterMut<'a, T, K> {
        self.par_iter_mut()
    }
}

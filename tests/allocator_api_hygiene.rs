//! The generated trait impls must compile whatever traits the user's module
//! has in scope: generated code calls trait methods with fully qualified
//! paths, never method-call syntax that a user trait can make ambiguous.

use idtable::SoaAllocator;

/// A user trait implemented for the generated allocator, with a method
/// named like one the derive calls.
trait Spawn {
    fn extend(&mut self, n: usize);
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Particle {
    pub mass: f32,
}

impl Spawn for ParticleAllocator {
    fn extend(&mut self, n: usize) {
        for i in 0..n {
            self.insert(Particle { mass: i as f32 });
        }
    }
}

#[test]
fn from_iterator_and_extend_work_with_a_user_extend_method_in_scope() {
    let mut a: ParticleAllocator = (0..3).map(|i| Particle { mass: i as f32 }).collect();
    assert_eq!(a.len(), 3);
    Spawn::extend(&mut a, 2);
    Extend::extend(&mut a, [Particle { mass: 9.0 }]);
    assert_eq!(a.columns().mass, &[0.0, 1.0, 2.0, 0.0, 1.0, 9.0]);
    a.check_invariants();
}

mod blanket {
    use idtable::SoaAllocator;

    /// A blanket extension trait (like many `*Ext` traits), in scope where
    /// the derive expands.
    pub trait ExtendExt {
        fn extend<I: IntoIterator>(&mut self, iter: I) -> usize {
            iter.into_iter().count()
        }
    }
    impl<T: ?Sized> ExtendExt for T {}

    #[derive(SoaAllocator, Debug, Clone, PartialEq)]
    pub struct Spark {
        pub heat: u8,
    }

    #[test]
    fn extend_works_with_a_blanket_extend_trait_in_scope() {
        let mut a = SparkAllocator::new();
        Extend::extend(&mut a, [Spark { heat: 1 }, Spark { heat: 2 }]);
        let b: SparkAllocator = [Spark { heat: 3 }].into_iter().collect();
        assert_eq!(a.columns().heat, &[1, 2]);
        assert_eq!(b.columns().heat, &[3]);
        // the user's trait still works on the allocator, by its path
        assert_eq!(ExtendExt::extend(&mut a, [7, 8, 9]), 3);
        assert_eq!(a.len(), 2);
    }
}

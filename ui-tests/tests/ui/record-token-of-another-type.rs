// A hand-written `Record` impl receives tokens for its own type only, so it
// cannot pass one on to forge a value of another type.
use idtable::columns::{Col, ColumnTree};
use idtable::{Record, RecordToken};

mod checked {
    #[derive(idtable::SoaAllocator)]
    pub struct Small {
        i: usize,
    }
}

pub struct Evil(usize);

impl Record for Evil {
    type Tree = Col<usize>;
    type Values = usize;
    type Ref<'a> = &'a usize;
    type Mut<'a> = &'a mut usize;
    type Columns<'a> = &'a [usize];
    type ColumnsMut<'a> = &'a mut [usize];

    fn into_values(self, _: RecordToken<Self>) -> usize {
        self.0
    }
    fn from_values(i: usize, token: RecordToken<Self>) -> Self {
        let _forged = <checked::Small as Record>::from_values(1 << 20, token);
        Evil(i)
    }
    fn make_ref<'a>(r: <Self::Tree as ColumnTree>::Refs<'a>, _: RecordToken<Self>) -> &'a usize {
        r
    }
    fn make_mut<'a>(r: <Self::Tree as ColumnTree>::Muts<'a>, _: RecordToken<Self>) -> &'a mut usize {
        r
    }
    fn make_columns<'a>(r: <Self::Tree as ColumnTree>::Slices<'a>, _: RecordToken<Self>) -> &'a [usize] {
        r
    }
    fn make_columns_mut<'a>(
        r: <Self::Tree as ColumnTree>::SlicesMut<'a>,
        _: RecordToken<Self>,
    ) -> &'a mut [usize] {
        r
    }
    fn shared_columns<'b, 'a: 'b>(c: &'b &'a mut [usize]) -> &'b [usize] {
        c
    }
    fn reborrow_columns<'b, 'a: 'b>(c: &'b mut &'a mut [usize]) -> &'b mut [usize] {
        c
    }
}

fn main() {}

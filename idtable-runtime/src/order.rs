//! Reordering dense rows in place: what sorting a storage or a map does
//! once the new order is known.

/// Moves the element at `order[k]` to position `k`, for every `k`, with
/// `swap(a, b)` as the only move (`order` is a permutation of its indices).
/// Each cycle of the permutation costs one swap per element but one.
pub(crate) fn apply_order(order: &[usize], mut swap: impl FnMut(usize, usize)) {
    let mut placed = alloc::vec![false; order.len()];
    for start in 0..order.len() {
        if placed[start] {
            continue;
        }
        placed[start] = true;
        let mut at = start;
        loop {
            let from = order[at];
            if from == start {
                break;
            }
            swap(at, from);
            placed[from] = true;
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::apply_order;
    use alloc::vec::Vec;

    #[test]
    fn every_permutation_of_four_is_applied() {
        let mut perms: Vec<Vec<usize>> = Vec::new();
        for a in 0..4 {
            for b in 0..4 {
                for c in 0..4 {
                    for d in 0..4 {
                        let p = alloc::vec![a, b, c, d];
                        let mut seen = p.clone();
                        seen.sort();
                        if seen == [0, 1, 2, 3] {
                            perms.push(p);
                        }
                    }
                }
            }
        }
        assert_eq!(perms.len(), 24);
        for order in perms {
            let mut items = alloc::vec!['a', 'b', 'c', 'd'];
            let want: Vec<char> = order.iter().map(|&i| items[i]).collect();
            apply_order(&order, |x, y| items.swap(x, y));
            assert_eq!(items, want, "order {order:?}");
        }
    }
}

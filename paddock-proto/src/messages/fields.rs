//! Serde helpers shared by the message types: defaults and "skip when" predicates.

pub(super) fn is_false(b: &bool) -> bool {
    !*b
}

pub(super) fn is_true(b: &bool) -> bool {
    *b
}

pub(super) fn yes() -> bool {
    true
}

pub(super) fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

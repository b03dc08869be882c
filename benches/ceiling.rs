//! The ceiling of the load benchmark: a minimal hyper server that answers
//! every request with the same bytes and does nothing else. (Placeholder;
//! the load benchmark fills it in.)

fn main() {}

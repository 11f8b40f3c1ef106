// The tests build their programs from copies of Cargo.toml and Cargo.lock, with their own
// src/main.rs: this one only lets `cargo update` and `cargo tree` run here.
fn main() {}

fn main() {
    println!("urchin {}", env!("CARGO_PKG_VERSION"));
}

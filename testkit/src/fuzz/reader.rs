//! The framing of the fuzz inputs (described in `fuzz/README.md`).

/// Reads the framing of a fuzz input: little-endian integers and byte runs; missing bytes read as
/// zero, so every input is usable.
pub struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over the whole input.
    #[must_use]
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data }
    }

    /// The next `n` bytes (fewer at the end).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.data.split_at(n.min(self.data.len()));
        self.data = tail;
        head
    }

    /// The rest of the input.
    pub fn rest(&mut self) -> &'a [u8] {
        self.take(usize::MAX)
    }

    fn le<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let bytes = self.take(N);
        out[..bytes.len()].copy_from_slice(bytes);
        out
    }

    /// A byte.
    pub fn u8(&mut self) -> u8 {
        self.le::<1>()[0]
    }

    /// A little-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.le())
    }

    /// A little-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.le())
    }

    /// A little-endian u64.
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.le())
    }

    /// A little-endian i32.
    pub fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.le())
    }

    /// A u64 drawn near the boundaries: a tag byte, then 1, 2 or 8 bytes. Tag % 4: 0 a small value
    /// (one byte), 1 two bytes, 2 eight bytes, 3 `u64::MAX` minus one byte.
    pub fn u64_boundary(&mut self) -> u64 {
        match self.u8() % 4 {
            0 => u64::from(self.u8()),
            1 => u64::from(self.u16()),
            2 => self.u64(),
            _ => u64::MAX - u64::from(self.u8()),
        }
    }
}

/// An origin of bytes read in order, such as a file, an in-memory buffer or a decompressor.
package protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes into the start of `buffer`.
    ///
    /// A source may return fewer bytes than asked for even before its end.
    ///
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: The number of bytes read; 0 only at the end (or when `buffer` is empty).
    /// - Throws: When the bytes cannot be read, or (for `GzipReader`) are refused.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

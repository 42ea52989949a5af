/// A destination for bytes, such as a file or an in-memory buffer.
///
/// `GzipWriter` writes its compressed output to a sink. Tests use their own sinks to inject write failures.
package protocol ByteSink: AnyObject {
    /// Writes all of `bytes`, or throws.
    ///
    /// - Parameter bytes: The bytes to write; only valid for the duration of the call.
    /// - Throws: `IOError` (or the sink's own error) when the bytes could not all be written.
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

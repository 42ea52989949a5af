/// Writes compact JSON into a byte buffer, one value (one archive line) at a time.
///
/// Values can be written whole with `value(_:)`, or streamed without building a `JSONValue` tree;
/// commas and colons are placed automatically, and a call out of order throws `JSONWriteError`
/// without touching the output. The output is deterministic: strings are written as raw UTF-8 with
/// only `"`, `\` and control characters escaped (`/` is not), integers in decimal, doubles in their
/// shortest form that reads back to the same value, objects in their member order.
///
///     var writer = JSONWriter()
///     try writer.beginObject()
///     try writer.key("op")
///     try writer.string("update")
///     try writer.key("rev")
///     try writer.int(3)
///     try writer.endObject()
///     writer.text  // {"op":"update","rev":3}
///     writer.reset()
package struct JSONWriter: Sendable {
    /// The JSON written so far.
    package internal(set) var bytes: [UInt8]

    /// The kind of each open container, innermost last.
    private var containers: [Container] = []
    /// Whether the innermost open container has no element yet.
    private var atFirstElement = true
    /// Whether a key has been written and its value has not.
    private var awaitingValue = false
    /// Whether a whole top-level value has been written.
    package private(set) var isComplete = false

    private enum Container {
        case array
        case object
    }

    /// An empty writer whose buffer has room for `capacity` bytes before it grows.
    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The JSON written so far, as text.
    package var text: String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Forgets everything written, keeping the buffer's capacity for the next line.
    package mutating func reset() {
        removeAll(keepingCapacity: true)
    }

    /// Forgets everything written.
    package mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
        bytes.removeAll(keepingCapacity: keepCapacity)
        containers.removeAll(keepingCapacity: keepCapacity)
        atFirstElement = true
        awaitingValue = false
        isComplete = false
    }

    /// Ends the current line with `\n`, so that another top-level value can follow in the same buffer.
    ///
    /// - Throws: `JSONWriteError.incompleteValue` unless a whole value has been written since the last line.
    package mutating func newline() throws(JSONWriteError) {
        guard isComplete else { throw .incompleteValue }
        bytes.append(0x0A)
        isComplete = false
    }

    /// `value` encoded as compact JSON.
    ///
    /// - Throws: `JSONWriteError.nonFiniteNumber` if it holds a NaN or infinite double.
    package static func encode(_ value: JSONValue) throws(JSONWriteError) -> [UInt8] {
        var writer = JSONWriter()
        try writer.value(value)
        return writer.bytes
    }

    /// `value` encoded as compact JSON text.
    ///
    /// - Throws: `JSONWriteError.nonFiniteNumber` if it holds a NaN or infinite double.
    package static func encodeString(_ value: JSONValue) throws(JSONWriteError) -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }
}

// MARK: - Streaming

extension JSONWriter {
    /// Writes a whole value; if it holds a NaN or infinite double, nothing of it is written.
    ///
    /// Nested containers are written by recursion, one level each: a tree from `JSONParser` is at most
    /// `Limits.maxDepth` deep.
    ///
    /// - Throws: `JSONWriteError`, for a non-finite double or a value where none may go.
    package mutating func value(_ value: JSONValue) throws(JSONWriteError) {
        let mark = bytes.count
        let (wasAtFirstElement, wasAwaitingValue) = (atFirstElement, awaitingValue)
        try beforeValue()
        do {
            try write(value)
        } catch {
            bytes.removeSubrange(mark...)
            (atFirstElement, awaitingValue) = (wasAtFirstElement, wasAwaitingValue)
            throw error
        }
        afterValue()
    }

    /// Writes `json`, one complete JSON value that is already encoded, byte for byte as it is.
    ///
    /// For copying stored JSON (such as a field list this writer produced earlier) into a line without
    /// parsing it again. It is not checked: the caller vouches that it is one valid, compact value.
    ///
    /// - Throws: `JSONWriteError.emptyRawValue` for no bytes, or an error for a value where none may go.
    package mutating func rawValue(_ json: UnsafeRawBufferPointer) throws(JSONWriteError) {
        guard !json.isEmpty else { throw .emptyRawValue }
        try beforeValue()
        bytes.append(contentsOf: json)
        afterValue()
    }

    /// Writes `json`, one complete JSON value that is already encoded, byte for byte as it is.
    ///
    /// - Throws: `JSONWriteError.emptyRawValue` for no bytes, or an error for a value where none may go.
    package mutating func rawValue(_ json: [UInt8]) throws(JSONWriteError) {
        let result = json.withUnsafeBytes { raw in
            Result { () throws(JSONWriteError) in try rawValue(raw) }
        }
        try result.get()
    }

    /// Opens an object; follow with `key(_:)` and a value for each member, then `endObject()`.
    package mutating func beginObject() throws(JSONWriteError) {
        try beforeValue()
        bytes.append(UInt8(ascii: "{"))
        containers.append(.object)
        atFirstElement = true
    }

    /// Closes the innermost open container, which must be an object with no key awaiting its value.
    package mutating func endObject() throws(JSONWriteError) {
        guard containers.last == .object else { throw .mismatchedEnd }
        guard !awaitingValue else { throw .missingValue }
        bytes.append(UInt8(ascii: "}"))
        containers.removeLast()
        afterValue()
    }

    /// Opens an array; follow with its elements, then `endArray()`.
    package mutating func beginArray() throws(JSONWriteError) {
        try beforeValue()
        bytes.append(UInt8(ascii: "["))
        containers.append(.array)
        atFirstElement = true
    }

    /// Closes the innermost open container, which must be an array.
    package mutating func endArray() throws(JSONWriteError) {
        guard containers.last == .array else { throw .mismatchedEnd }
        bytes.append(UInt8(ascii: "]"))
        containers.removeLast()
        afterValue()
    }

    /// Writes the key of the next member of the innermost open object.
    package mutating func key(_ key: String) throws(JSONWriteError) {
        guard containers.last == .object else { throw .keyOutsideObject }
        guard !awaitingValue else { throw .missingValue }
        if !atFirstElement { bytes.append(UInt8(ascii: ",")) }
        atFirstElement = false
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
        awaitingValue = true
    }

    /// Writes a string value.
    package mutating func string(_ value: String) throws(JSONWriteError) {
        try beforeValue()
        writeString(value)
        afterValue()
    }

    /// Writes an integer value in decimal.
    package mutating func int(_ value: Int64) throws(JSONWriteError) {
        try beforeValue()
        writeInteger(value)
        afterValue()
    }

    /// Writes an integer value in decimal.
    package mutating func int(_ value: Int) throws(JSONWriteError) {
        try int(Int64(value))
    }

    /// Writes a double in its shortest form that reads back to the same value, such as `0.1` or `1e-07`.
    ///
    /// - Throws: `JSONWriteError.nonFiniteNumber` for NaN and infinities, writing nothing.
    package mutating func double(_ value: Double) throws(JSONWriteError) {
        guard value.isFinite else { throw .nonFiniteNumber }
        try beforeValue()
        writeDouble(value)
        afterValue()
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) throws(JSONWriteError) {
        try beforeValue()
        writeLiteral(value ? "true" : "false")
        afterValue()
    }

    /// Writes `null`.
    package mutating func null() throws(JSONWriteError) {
        try beforeValue()
        writeLiteral("null")
        afterValue()
    }

    /// Checks that a value may go here and writes the comma that separates it from the previous element.
    private mutating func beforeValue() throws(JSONWriteError) {
        switch containers.last {
        case nil:
            guard !isComplete else { throw .valueAlreadyComplete }
        case .array:
            if !atFirstElement { bytes.append(UInt8(ascii: ",")) }
            atFirstElement = false
        case .object:
            guard awaitingValue else { throw .missingKey }
            awaitingValue = false
        }
    }

    private mutating func afterValue() {
        atFirstElement = false
        if containers.isEmpty { isComplete = true }
    }
}

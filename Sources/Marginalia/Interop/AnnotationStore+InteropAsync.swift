// MARK: - Swift concurrency: other tools' files

/// Other tools' files as `async` calls that run off the caller's actor (`offActor`).
extension AnnotationStore {
    /// Brings in another tool's file (Kindle, KOReader, Readwise, W3C), as `importFile(_:name:format:options:)`
    /// does, off the caller's actor.
    public func importFile(_ bytes: [UInt8], name: String, format: InteropFormat? = nil,
                           options: InteropImportOptions = InteropImportOptions(),
                           progress: ProgressHandler? = nil) async throws -> InteropImportReport {
        try await Self.offActor(progress: progress) { _ in
            try self.importFile(bytes, name: name, format: format, options: options)
        }
    }
}

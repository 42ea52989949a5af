// MARK: - Other tools' formats

extension AnnotationStore {
    /// Anchors another tool's items (from `KindleClippings`, `KOReaderExport`, `ReadwiseCSV` or
    /// `WebAnnotationReader`) to the attached content by their text, and merges them in one transaction: all or
    /// nothing, through the same merge and checks as an archive. Importing the same items again adds nothing.
    ///
    ///     let items = try KindleClippings.read(bytes, file: "My Clippings.txt")
    ///     let report = try store.importItems(items, format: .kindle)
    /// - Throws: `MarginaliaError` (`.contentUnavailable` for foreign items without content).
    package func importItems(_ items: [ImportItem], format: InteropFormat,
                            options: InteropImportOptions = InteropImportOptions()) throws -> InteropImportReport {
        try importPlanned(try ImportBooks(items), format: format, options: options,
                          source: ReceiptSource(kind: .import))
    }

    /// Reads a file of another tool (its format told from its content when `format` is nil), anchors its items to
    /// the attached content by their text, and merges them in one transaction: all or nothing, through the same
    /// merge and checks as an archive. Importing the same file again adds nothing.
    ///
    ///     let report = try store.importFile(bytes, name: "My Clippings.txt")   // report.format == .kindle
    /// - Parameter name: the file's name, for messages.
    /// - Throws: `MarginaliaError` (`.invalidData` for a file that cannot be read, or whose format is unknown).
    public func importFile(_ bytes: [UInt8], name: String, format: InteropFormat? = nil,
                           options: InteropImportOptions = InteropImportOptions()) throws -> InteropImportReport {
        guard let format = format ?? InteropReader.detect(bytes) else {
            throw MarginaliaError(InteropError(
                file: name, line: nil,
                reason: "not a Kindle, KOReader, Readwise or W3C file; give its format"))
        }
        return try importFile(from: ByteArraySource(bytes), name: name, format: format, options: options)
    }

    /// Reads a file of another tool from `source` and imports its items, as `importFile(_:name:format:options:)`
    /// does; a format that `InteropReader.streams` is read in pieces, so that the file is never in memory whole.
    /// - Throws: `MarginaliaError` (`.invalidData` for a file that cannot be read); the source's read errors.
    package func importFile(from source: any ByteSource, name: String, format: InteropFormat,
                            options: InteropImportOptions = InteropImportOptions()) throws -> InteropImportReport {
        let hashed: HashingSource
        // Read straight into books, which keep the items in the import's scratch database, not in memory.
        var books = try ImportBooks()
        let digest: String
        do {
            hashed = try HashingSource(source)
            try InteropReader.read(hashed, format: format, file: name) { item in
                if let field = item.disallowedField() {
                    throw InteropError(file: name, line: item.line, reason: "field \"\(field)\": contains a NUL "
                        + "character (U+0000), which an annotation cannot hold; nothing was imported")
                }
                try books.add(item)
            }
            digest = try hashed.finalizeHex()
        } catch let error as MarginaliaError {
            throw error
        } catch {
            throw MarginaliaError(error)
        }
        // The receipt of the new changes names the file, its size and its SHA-256, as an archive import's does.
        let receipt = ReceiptSource(kind: .import, file: name, size: Int64(hashed.bytesRead), sha256: digest)
        return try importPlanned(books, format: format, options: options, source: receipt)
    }

    /// Plans the import on a reader (anchoring every item by its text, the long part), then merges the plan on
    /// the writer: a write made meanwhile waits only for the merge.
    private func importPlanned(_ books: ImportBooks, format: InteropFormat, options: InteropImportOptions,
                               source: ReceiptSource) throws -> InteropImportReport {
        let plan = try engine.reading {
            try InteropImporter(store: $0).planImport(books, format: format, options: options)
        }
        return try engine.writing {
            try InteropImporter(store: $0).mergePlanned(plan, options: options, source: source)
        }
    }
}

extension AnnotationStore {
    /// Writes the live annotations as Markdown into `directory`, one file per document, rewriting only the files
    /// whose annotations changed and only Marginalia's section of each (see the README's `export DIR --format
    /// markdown`).
    public func exportMarkdown(toDirectory directory: String, filter: ExportFilter = ExportFilter()) throws
        -> MarkdownFolderReport
    {
        let (annotations, context) = try exportItems(filter: filter)
        do {
            return try MarkdownFolder.write(annotations, context: context, to: directory)
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// The live annotations an export in `filter`'s scope holds, in the store's order, with what the attached
    /// content says of them (titles, reading order, orphans): what the writers (`MarkdownWriter`,
    /// `WebAnnotationWriter`, `ReadwiseCSVWriter`) take.
    ///
    ///     let (annotations, context) = try store.exportItems()
    ///     let markdown = MarkdownWriter.render(annotations, context: context)
    /// - Parameter format: the format the items are for: one that carries deleted annotations (`csv`, `calibre`)
    ///   gets them too.
    package func exportItems(filter: ExportFilter = ExportFilter(), for format: InteropExportFormat? = nil) throws
        -> (annotations: [Annotation], context: InteropExportContext)
    {
        try engine.reading {
            try InteropExporter(store: $0).items(filter: filter, includeDeleted: format?.carriesDeleted ?? false)
        }
    }

    /// Writes the live annotations in `format` to `path`, through a temporary file beside it, as an archive export
    /// is (never over a store or the content; an existing file only with `force`). Returns how many it wrote, and
    /// how many the format could not carry.
    @discardableResult
    public func exportInterop(_ format: InteropExportFormat, toFile path: String,
                              filter: ExportFilter = ExportFilter(), force: Bool = false) throws
        -> InteropExportReport
    {
        try engine.reading { try InteropExporter(store: $0).export(format, toFile: path, filter: filter, force: force) }
    }
}

/// The library's name and version.
public enum Marginalia {
    /// This version of Marginalia (semantic versioning).
    public static let version = "0.1.0"
}

// MARK: - The library's composition: what the engine runs of its adapters, without naming them

extension UnfinishedWork {
    /// Every adapter's unfinished work, in the order opening a store finishes it.
    static let registered: [UnfinishedWork] = [ArchiveImporter.interruptedImports]
}

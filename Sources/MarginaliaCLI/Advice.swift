import Marginalia

/// What the tool adds to a library error: the library states facts (what, which file, which id); the tool knows
/// its own commands and options, and so words the advice, and offers only what the command at hand accepts.
enum Advice {
    /// The advice for `error` met by `command`, as text to append to its message ("; pass --force to replace it"),
    /// or "" when there is none.
    static func text(for error: any Error, command: CommandSpec) -> String {
        let error = (error as? MarginaliaError).map(\.underlyingError) ?? error
        switch error {
        case let refusal as OutputRefusal:
            return refusal.remedy.map { "; " + words(for: $0, command: command) } ?? ""
        case StoreError.storeMissing:
            return " (it is created by 'marginalia init' or by the first annotation)"
        case StoreError.massDeletion:
            guard command.options.contains(where: { $0.name == "allow-mass-delete" }) else { return "" }
            return ". If those deletions are wanted, run the command again with --allow-mass-delete"
        case is AuditReportTooLarge:
            return ". A page that large is slow to open, or does not open, in a browser: write it as a directory of "
                + "pages, index.html and a page per document, with --split (FILE then names the directory)"
        case StoreError.changeNotOfAnnotation(_, let annotation):
            return " (see 'history \(annotation)')"
        case let refusal as SyncFolderError where refusal.kind == .identityNeeded:
            return "; give --identity FILE (an identity of one of its recipients), or --plain to stop encrypting"
        case let refusal as ArchiveError where refusal.kind == .key:
            guard command.options.contains(where: { $0.name == "identity" }) else { return "" }
            return "; it opens only with the age identity it was encrypted to (--identity FILE) or its passphrase "
                + "(--passphrase)"
        default:
            return ""
        }
    }

    private static func words(for remedy: OutputRefusal.Remedy, command: CommandSpec) -> String {
        let canForce = command.options.contains { $0.name == "force" }
        switch remedy {
        case .nameAFile:
            return "name a file"
        case .streamInstead:
            return "to stream an archive use 'export -' and a redirection"
        case .force:
            return canForce ? "pass --force to replace it" : "choose another file"
        case .forceRebuild:
            return canForce ? "pass --force to rebuild it" : "choose another file"
        case .anotherFile:
            return "choose another file"
        case .changedMeanwhile:
            return "try again"
        }
    }
}

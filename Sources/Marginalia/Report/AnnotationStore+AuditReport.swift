// MARK: - The audit report

extension AnnotationStore {
    /// The audit of the store's history that `filter` covers: verify's verdict (also against `backup` when one is
    /// given), the changes held in quarantine, the devices with their counts, the timeline, the receipts and the
    /// documents. Reads only.
    ///
    ///     let report = try store.auditReport(AuditFilter(since: Timestamp.parseISO8601("2026-11-01")))
    /// - Parameters:
    ///   - backup: an archive whose header's head the history is checked against, as `verify(against:)`.
    ///   - key: the identities or passphrase that open `backup` when it is encrypted.
    /// - Throws: `MarginaliaError`: `.notFound` or `.invalidArgument` for a device the store does not know (or
    ///   an ambiguous one), `.invalidData` for a backup that cannot be read.
    public func auditReport(_ filter: AuditFilter = AuditFilter(), against backup: String? = nil,
                            key: AgeKey? = nil) throws -> AuditReport {
        let verification = try backup.map { try verify(against: $0, key: key) } ?? verify()
        return try engine.reading { try summary($0, filter, verification: verification, backup: backup) }
    }

    /// The report of `filter` with a verification made elsewhere: everything else read through `store`.
    func summary(_ store: StoreReader, _ filter: AuditFilter, verification: VerificationReport,
                 backup: String?) throws -> AuditReport {
        var devices = try DeviceNames(db: store.db).infos(own: store.deviceID)
        for index in devices.indices where devices[index].name == nil {
            devices[index].name = DeviceNames.derivedName(of: devices[index].id)
        }
        let builder = try AuditReportBuilder(store: store, filter: filter)
        let counts = try builder.deviceCounts()
        let shown = devices.compactMap { device -> AuditDevice? in
            guard let found = counts[device.id] else { return nil }
            return AuditDevice(id: device.id, name: device.name, isThisDevice: device.isThisDevice,
                               firstChange: found.first, lastChange: found.last, counts: found.counts)
        }
        return AuditReport(
            filter: filter, madeAt: Timestamp.nowMilliseconds(), verification: verification, backup: backup,
            quarantined: try store.quarantine.all(), devices: shown, timeline: try builder.timeline(),
            receipts: try store.receipts.all().map(AuditReceipt.init), documents: try builder.documents(),
            otherChanges: try builder.otherChanges())
    }

    /// Hands over the annotations of each document `filter` covers, one document at a time in document order,
    /// each with its versions (the changes the filter shows) and field diffs; memory holds one document.
    ///
    /// With content attached and `checkAnchors`, each live annotation is checked against it and an orphaned one
    /// says why. An annotation none of whose changes the filter shows is left out (all are shown without a time
    /// or device condition).
    public func forEachAuditDocument(_ filter: AuditFilter, checkAnchors: Bool = true,
                                     _ body: (AuditDocument) throws -> Void) throws {
        try engine.reading { store in
            try AuditReportBuilder(store: store, filter: filter)
                .forEachDocument(checkAnchors: checkAnchors && store.content != nil, body)
        }
    }
}

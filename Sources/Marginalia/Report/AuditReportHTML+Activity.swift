// MARK: - Activity: the timeline and the devices

extension AuditReportHTML {
    /// The timeline of changes per day or week by device (SVG, with a table beside it), and the device table.
    func activity() throws {
        try out.raw("<section id=\"activity\" aria-labelledby=\"activity-title\">\n")
        try out.raw("<h2 id=\"activity-title\">Activity</h2>\n")
        try timeline()
        try devices()
        try out.raw("</section>\n")
    }

    private func timeline() throws {
        let timeline = report.timeline
        let unit = timeline.days == 1 ? "day" : "week"
        guard !timeline.buckets.isEmpty else {
            try out.raw("<p>No change in this report.</p>\n")
            return
        }
        // A bar per bucket, 4 to 24 units wide: a few buckets do not stretch into slabs.
        let step = Double(max(4, min(24, 720 / timeline.buckets.count)))
        let width = Int(step * Double(timeline.buckets.count))
        let height = 120
        let highest = max(1, timeline.buckets.map(\.total).max() ?? 1)
        let first = Timestamp.iso8601(milliseconds: timeline.buckets[0].start).prefix(10)
        let last = Timestamp.iso8601(milliseconds: timeline.buckets[timeline.buckets.count - 1].start).prefix(10)
        try out.raw("<figure>\n<svg class=\"timeline\" width=\"\(width)\" height=\"\(height + 4)\" viewBox=\"0 0 "
            + "\(width) \(height + 4)\" role=\"img\" aria-labelledby=\"timeline-caption\" "
            + "xmlns=\"http://www.w3.org/2000/svg\">\n")
        for (index, bucket) in timeline.buckets.enumerated() {
            var top = Double(height)
            let x = Double(index) * step
            try out.raw("<g>")
            for device in report.devices {
                guard let number = bucket.counts[device.id], number > 0 else { continue }
                let barHeight = Double(number) / Double(highest) * Double(height - 4)
                top -= barHeight
                try out.raw("<rect x=\"\(format(x))\" y=\"\(format(top))\" width=\"\(format(max(1, step - 1)))\" "
                    + "height=\"\(format(barHeight))\" fill=\"\(colors[device.id] ?? "#888")\"><title>")
                try out.text("\(Timestamp.iso8601(milliseconds: bucket.start).prefix(10)): \(name(device.id)), "
                    + count(number, "change"))
                try out.raw("</title></rect>")
            }
            try out.raw("</g>\n")
        }
        try out.raw("</svg>\n<figcaption id=\"timeline-caption\">Changes per \(unit), \(first) to \(last), "
            + "stacked by device (the highest bar: \(count(highest, "change"))): ")
        for (index, device) in report.devices.enumerated() {
            try out.raw("\(index == 0 ? "" : ", ")<span class=\"swatch\" style=\"background:"
                + "\(colors[device.id] ?? "#888")\"></span>")
            try out.text(name(device.id))
        }
        try out.raw(".</figcaption>\n</figure>\n")
        try timelineTable(unit: unit)
    }

    /// The timeline's figures as a table, for a screen reader or a reader who does not tell colours apart.
    private func timelineTable(unit: String) throws {
        try out.raw("<details><summary>The timeline as a table</summary>\n<div class=\"scroll\"><table>"
            + "<caption>Changes per \(unit) by device</caption>\n<thead><tr><th scope=\"col\">"
            + "\(unit == "day" ? "Day" : "Week from")</th>")
        for device in report.devices {
            try out.element("th", "scope=\"col\"", name(device.id))
        }
        try out.raw("<th scope=\"col\">Total</th></tr></thead>\n<tbody>\n")
        for bucket in report.timeline.buckets {
            try out.raw("<tr><th scope=\"row\">\(Timestamp.iso8601(milliseconds: bucket.start).prefix(10))</th>")
            for device in report.devices { try out.raw("<td class=\"n\">\(bucket.counts[device.id] ?? 0)</td>") }
            try out.raw("<td class=\"n\">\(bucket.total)</td></tr>\n")
        }
        try out.raw("</tbody></table></div></details>\n")
    }

    private func devices() throws {
        // The operations some device made: a column of zeros says nothing.
        let operations = AuditDevice.operations.filter { operation in
            report.devices.contains { $0.counts[operation] != nil }
        }
        try out.raw("<h3 id=\"devices-title\">Devices</h3>\n<div class=\"scroll\"><table id=\"devices\" "
            + "aria-labelledby=\"devices-title\">\n<thead><tr><th scope=\"col\">Device</th><th scope=\"col\">Id</th>"
            + "<th scope=\"col\">First seen</th><th scope=\"col\">Last seen</th>")
        for operation in operations { try out.raw("<th scope=\"col\">\(operation)</th>") }
        try out.raw("<th scope=\"col\">Total</th></tr></thead>\n<tbody>\n")
        for device in report.devices {
            try out.raw("<tr data-device=\"")
            try out.text(device.id)
            try out.raw("\" data-total=\"\(device.total)\"><th scope=\"row\">")
            try out.text(device.name ?? "(no name)")
            try out.raw(device.isThisDevice ? " <span class=\"muted\">(this device)</span>" : "")
            try out.raw("</th>")
            try out.raw("<td><code title=\"")
            try out.text(device.id)
            try out.raw("\">")
            try out.text(String(device.id.prefix(13)))
            try out.raw("</code></td><td class=\"time\">\(Timestamp.iso8601(milliseconds: device.firstChange))</td>"
                + "<td class=\"time\">\(Timestamp.iso8601(milliseconds: device.lastChange))</td>")
            for operation in operations {
                try out.raw("<td class=\"n\" data-op=\"\(operation)\">\(device.counts[operation] ?? 0)</td>")
            }
            try out.raw("<td class=\"n total\">\(device.total)</td></tr>\n")
        }
        try out.raw("</tbody>\n<tfoot><tr><th scope=\"row\" colspan=\"2\">All devices</th><td></td><td></td>")
        for operation in operations {
            try out.raw("<td class=\"n\">\(report.devices.reduce(0) { $0 + ($1.counts[operation] ?? 0) })</td>")
        }
        try out.raw("<td class=\"n\" id=\"total-changes\">\(report.changeCount)</td></tr></tfoot>\n"
            + "</table></div>\n")
    }

    private func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

import Parsing
import Realtime
import Scheduling

/// Check-ins as Realtime publishes them (`public.wave_checkins`): what the table's trigger announces
/// (`nextwave_checkins_changed` in `Migrations/0033_change_notices.sql`), read into Realtime's changes. The trigger
/// writes the wave, station, lake and departure only; so do the changes — no subscriber learns who checked in.
enum CheckinChanges {
    /// The change feed's topic of the trigger's notices.
    static let topic = ChangeTopic("nextwave-checkin-rows")

    /// The table as the apps subscribe to it, with the columns its changes carry.
    static let table = RealtimeTable(name: "wave_checkins", columns: columns.map { RealtimeTable.Column($0.name, $0.type) })
    private static let columns: [(name: String, type: String)] = [
        ("wave_id", "text"), ("station_id", "text"), ("lake_id", "text"), ("departure_at", "timestamptz"),
    ]

    /// The changes a notice's `body` holds (one per wave), or `nil` when it is not the trigger's shape.
    static func read(_ body: String) -> [TableChange]? {
        let text = Array(body.utf8)
        guard let notice = try? JSONScanner.parse(text), let type = notice["type"]?.string, let kind = TableChange.Kind(rawValue: type),
            let stamp = notice["commit_timestamp"]?.string, let rows = notice["rows"]?.elements
        else { return nil }
        var changes: [TableChange] = []
        for row in rows {
            let record = row["record"].flatMap(values)
            let old = row["old_record"].flatMap(values)
            guard let wave = (record ?? old)?.first?.value else { return nil }
            changes.append(TableChange(table: table.name, kind: kind, record: record, oldRecord: old, commitTimestamp: stamp, coalescing: wave))
        }
        return changes
    }

    /// The published columns of a row object, in the table's order; `nil` if one is missing or not text or null.
    private static func values(_ node: JSONNode) -> [TableChange.Value]? {
        var values: [TableChange.Value] = []
        for column in columns {
            guard let member = node[column.name] else { return nil }
            if member.isNull {
                values.append(.init(column.name, nil))
            } else if let text = member.string {
                values.append(.init(column.name, text))
            } else {
                return nil
            }
        }
        return values
    }
}

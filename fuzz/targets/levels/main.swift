import LakesFormat
import Parsing

// The CSV reader of `pier import water-levels` on arbitrary bytes. Properties: no crash; every row has a lake name,
// a real calendar day and a plausible level; rows and problems come in line order, and no line is both.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (rows, problems) = WaterLevelCSV.read(Array(UnsafeBufferPointer(start: data, count: size)))
    for row in rows {
        precondition(!row.lake.isEmpty && row.lake.count <= 100, "lake \(row.lake)")
        precondition(LakeLevel.plausible.contains(row.level.metres), "level \(row.level.metres)")
        precondition(CalendarDate(row.level.day.description) == row.level.day, "day \(row.level.day)")
        precondition(row.line >= 2, "a row on the header's line")
    }
    precondition(zip(rows, rows.dropFirst()).allSatisfy { $0.line < $1.line }, "rows out of order")
    precondition(Set(rows.map(\.line)).isDisjoint(with: problems.map(\.line)), "a line both read and refused")
    return 0
}

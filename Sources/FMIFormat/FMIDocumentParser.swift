import Foundation
import Markup

/// Reads FMI WFS timevaluepair documents (observations and point forecasts) into series.
///
/// One streaming pass (no tree: an all-stations answer is ~6 MB). Works on element local names, so namespace
/// prefixes and versions (`atmosphericfeatures/1.0` vs `1.1`) do not matter; each series takes its station
/// from its own `omso:PointTimeSeriesObservation` (never by position in the document); an
/// `ows:ExceptionReport` is an error whatever the HTTP status was. Rules: `Tests/Fixtures/fmi/FORMAT.md`.
public enum FMIDocumentParser {
    /// Largest document accepted (an all-Finland hour is ~6 MB; the cap stops a runaway answer).
    public static let maximumBytes = 64 << 20

    public static func parse(_ bytes: [UInt8]) throws(FMIError) -> [FMISeries] {
        let reader = Reader()
        do {
            try MarkupEvents.parse(xml: bytes, handler: reader, maximumBytes: maximumBytes)
        } catch {
            if let problem = reader.problem { throw problem }
            throw .unreadable(error)
        }
        if let problem = reader.problem { throw problem }
        return reader.series
    }

    /// A value, or `nil` for `NaN`, an empty element or anything that is not a finite number.
    static func number(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// ASCII whitespace trimmed (FMI writes `gml:pos` with a trailing space) without Foundation's slow path.
    static func trimmed(_ text: String) -> String {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == bytes.startIndex && last == bytes.index(before: bytes.endIndex) { return text }
        return String(text[first...last])
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// One member being read.
    private struct Member {
        var parameter: String?
        var observedProperty: String?
        var fmisid: Int?
        var stationName: String?
        var otherNames: [String] = []
        var position: [Double] = []
        var points: [FMISeries.Point] = []
        var time: Date?

        func series() -> FMISeries? {
            var parameter = parameter
            if parameter == nil, let observedProperty, let items = URLComponents(string: observedProperty)?.queryItems {
                parameter = items.first { $0.name == "param" }?.value
            }
            guard let parameter, position.count >= 2, position[0].isFinite, position[1].isFinite else { return nil }
            let name = stationName ?? otherNames.first { !$0.isEmpty && Double($0) == nil }
            return FMISeries(
                parameter: parameter,
                location: FMILocation(fmisid: fmisid, name: name, latitude: position[0], longitude: position[1]),
                points: points)
        }
    }

    /// Where the text of the element being read goes.
    private enum Field {
        case fmisid, stationName, otherName, position, time, value, exceptionText
    }

    private final class Reader: MarkupEventHandler {
        var series: [FMISeries] = []
        var problem: FMIError?
        private var sawRoot = false
        private var isExceptionReport = false
        private var exceptionCode = "unknown"
        private var exceptionTexts: [String] = []
        private var member: Member?
        private var field: Field?

        func start(_ element: MarkupElement) -> Bool {
            let name = element.name
            if !sawRoot {
                sawRoot = true
                isExceptionReport = name.is("ExceptionReport")
                if !isExceptionReport && !name.is("FeatureCollection") { problem = .unexpectedRoot(name.string) }
            }
            field = nil
            if name.is("PointTimeSeriesObservation") {
                member = Member()
            } else if name.is("time") {
                field = .time
            } else if name.is("value") {
                field = .value
            } else if name.is("MeasurementTimeseries") {
                if let id = element.attribute("id"), let dash = id.lastIndex(of: "-"), id.index(after: dash) < id.endIndex {
                    member?.parameter = String(id[id.index(after: dash)...])
                }
            } else if name.is("observedProperty") {
                member?.observedProperty = element.attribute("href")
            } else if name.is("identifier") {
                if element.attribute("codeSpace")?.hasSuffix("/fmisid") == true { field = .fmisid }
            } else if name.is("name") {
                field = element.attribute("codeSpace")?.hasSuffix("/name") == true ? .stationName : .otherName
            } else if name.is("pos") {
                field = .position
            } else if name.is("Exception") {
                exceptionCode = element.attribute("exceptionCode") ?? exceptionCode
            } else if name.is("ExceptionText") {
                field = .exceptionText
            }
            return field != nil && (member != nil || field == .exceptionText)
        }

        func end(_ name: MarkupName, text: String?) {
            if let text, let current = field {
                field = nil
                store(FMIDocumentParser.trimmed(text), in: current)
            } else if name.is("value"), let time = member?.time {
                // `<wml2:value/>`: no value for this time.
                member?.points.append(FMISeries.Point(time: time, value: nil))
                member?.time = nil
            }
            if name.is("PointTimeSeriesObservation"), let finished = member {
                if let entry = finished.series() { series.append(entry) }
                member = nil
            } else if name.is("ExceptionReport"), isExceptionReport {
                problem = .exceptionReport(code: exceptionCode, texts: exceptionTexts)
            }
        }

        private func store(_ text: String, in field: Field) {
            switch field {
            case .fmisid: member?.fmisid = Int(text)
            case .stationName: if member?.stationName == nil { member?.stationName = text }
            case .otherName: member?.otherNames.append(text)
            case .position:
                if member?.position.isEmpty == true { member?.position = text.split(separator: " ").compactMap { Double($0) } }
            case .time: member?.time = FMITime.parse(text)
            case .value:
                if let time = member?.time { member?.points.append(FMISeries.Point(time: time, value: FMIDocumentParser.number(text))) }
                member?.time = nil
            case .exceptionText: exceptionTexts.append(text)
            }
        }
    }
}

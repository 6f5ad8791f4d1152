import Foundation
import Markup

/// Reads FMI WFS timevaluepair documents (observations and point forecasts) into series.
///
/// Works on element local names, so namespace prefixes and versions (`atmosphericfeatures/1.0` vs `1.1`) do not
/// matter; each series takes its station from its own `wfs:member` (never by position in the document); an
/// `ows:ExceptionReport` is an error whatever the HTTP status was. Rules: `../shared/fixtures/fmi/FORMAT.md`.
public enum FMIDocumentParser {
    /// Largest document accepted (an all-Finland hour is ~2 MB; the cap stops a runaway answer).
    public static let maximumBytes = 64 << 20

    public static func parse(_ bytes: [UInt8]) throws(FMIError) -> [FMISeries] {
        let document: MarkupDocument
        do { document = try MarkupDocument.xml(bytes, maximumBytes: maximumBytes) } catch { throw .unreadable(error) }
        guard let root = document.root else { throw .unexpectedRoot("") }
        switch root.name {
        case "ExceptionReport":
            let exception = root.descendants(named: "Exception").first
            throw .exceptionReport(
                code: exception?.attribute("exceptionCode") ?? "unknown",
                texts: root.descendants(named: "ExceptionText").map(\.text))
        case "FeatureCollection":
            break
        default:
            throw .unexpectedRoot(root.name)
        }
        var series: [FMISeries] = []
        for observation in root.descendants(named: "PointTimeSeriesObservation") {
            guard let timeseries = observation.descendants(named: "MeasurementTimeseries").first,
                let parameter = parameter(of: timeseries, in: observation),
                let location = location(in: observation)
            else { continue }
            var points: [FMISeries.Point] = []
            for pair in timeseries.descendants(named: "MeasurementTVP") {
                var time: Date?
                var value: Double?
                for child in pair.children {
                    switch child.name {
                    case "time": time = FMITime.parse(child.text)
                    case "value": value = number(child.text)
                    default: break
                    }
                }
                if let time { points.append(FMISeries.Point(time: time, value: value)) }
            }
            series.append(FMISeries(parameter: parameter, location: location, points: points))
        }
        return series
    }

    /// `obs-obs-1-1-t2m` / `mts-1-1-Temperature` → the part after the last `-`; else `param=` of the observed property.
    private static func parameter(of timeseries: MarkupNode, in observation: MarkupNode) -> String? {
        if let id = timeseries.attribute("id"), let dash = id.lastIndex(of: "-"), id.index(after: dash) < id.endIndex {
            return String(id[id.index(after: dash)...])
        }
        guard let href = observation.descendants(named: "observedProperty").first?.attribute("href"),
            let items = URLComponents(string: href)?.queryItems
        else { return nil }
        return items.first { $0.name == "param" }?.value
    }

    private static func location(in observation: MarkupNode) -> FMILocation? {
        guard let feature = observation.descendants(named: "featureOfInterest").first,
            let position = feature.descendants(named: "pos").first
        else { return nil }
        let coordinates = position.text.split(separator: " ").compactMap { Double($0) }
        guard coordinates.count >= 2, coordinates[0].isFinite, coordinates[1].isFinite else { return nil }
        var fmisid: Int?
        var name: String?
        for identifier in feature.descendants(named: "identifier")
        where identifier.attribute("codeSpace")?.hasSuffix("/fmisid") == true {
            fmisid = Int(identifier.text)
        }
        for element in feature.descendants(named: "name")
        where name == nil && element.attribute("codeSpace")?.hasSuffix("/name") == true {
            name = element.text
        }
        if name == nil {
            name = feature.descendants(named: "name").map(\.text).first { !$0.isEmpty && Double($0) == nil }
        }
        return FMILocation(fmisid: fmisid, name: name, latitude: coordinates[0], longitude: coordinates[1])
    }

    /// A value, or `nil` for `NaN`, an empty element or anything that is not a finite number.
    static func number(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}

import WarningPushFormat

// `POST /v1/devices`' body read on arbitrary bytes. Properties: no crash; what is accepted is what is stored — a
// lower-case hex token of 16 to 200 digits, one to ten distinct places inside the globe's ranges and rounded to two
// decimals, a severity of at least moderate.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let registration = try? DeviceRegistration(json: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    let token = registration.token.utf8
    precondition((16...200).contains(token.count) && token.count % 2 == 0, "token length \(token.count)")
    precondition(token.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }, "token not lower-case hex")
    precondition((1...DeviceRegistration.maximumPlaces).contains(registration.places.count), "\(registration.places.count) places")
    precondition(Set(registration.places).count == registration.places.count, "a place twice")
    for place in registration.places {
        precondition((-90...90).contains(place.latitude) && (-180...180).contains(place.longitude), "out of range")
        for value in [place.latitude, place.longitude] {
            precondition(abs(value * 100 - (value * 100).rounded()) < 1e-6, "not rounded: \(value)")
        }
    }
    precondition(registration.minimumSeverity.rawValue >= 2, "a minor threshold")
    return 0
}

import APNsFormat

// APNs' answer read and sorted on arbitrary bytes: the first two bytes choose the status (100…599), the rest is the
// body. Properties: no crash; a reason is letters only and at most 64 of them (it lands in metrics' labels and logs);
// only 200 is delivered, only 429 and 5xx are retried, only 410 and two 400 reasons forget the device, and a
// timestamp is carried only by a 410.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    let status = 100 + (Int(bytes[0]) << 8 | Int(bytes[1])) % 500
    let body = Array(bytes.dropFirst(2))
    let answer = APNsAnswer(body)
    if let reason = answer.reason {
        precondition(!reason.isEmpty && reason.count <= APNsAnswer.maximumReason, "reason length \(reason.count)")
        precondition(reason.unicodeScalars.allSatisfy { ($0.value >= 0x41 && $0.value <= 0x5A) || ($0.value >= 0x61 && $0.value <= 0x7A) }, "reason \(reason)")
    }
    switch APNsResult(status: status, apnsID: nil, body: body) {
    case .delivered:
        precondition(status == 200, "delivered on \(status)")
    case .retry(let retried, _):
        precondition(retried == status && (status == 429 || (500...599).contains(status)), "retry on \(status)")
    case .deviceGone(let gone, let reason, let since):
        precondition(gone == status && (status == 410 || (status == 400 && (reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic"))), "device gone on \(status) \(reason)")
        precondition(since == nil || status == 410, "a timestamp on \(status)")
    case .rejected(let rejected, _):
        precondition(rejected == status && status != 200 && status != 429 && status != 410 && !(500...599).contains(status), "rejected on \(status)")
    }
    return 0
}

fn main() {
    let src = testkit::corpus::convert::chat_session(1 << 20);
    let mut n = 0;
    for _ in 0..60 {
        let c = loopcompact::convert::convert(loopcompact::convert::Format::OpenAiChat, &src, 0).unwrap();
        n += c.transcript().len();
    }
    println!("{n}");
}

"""Date and time formats, the same in every language of the console: ISO order, 24-hour clock, seconds."""

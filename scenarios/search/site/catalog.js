const CATALOG = [
  {id: "lhd-1969-hc", title: "The Left Hand of Darkness", author: "Ursula K. Le Guin", edition: "Hardcover, 1969", price: "$120.00"},
  {id: "lhd-2000-pb", title: "The Left Hand of Darkness", author: "Ursula K. Le Guin", edition: "Paperback, 2000", price: "$12.99"},
  {id: "lhd-guide", title: "Study Guide: The Left Hand of Darkness", author: "BookNotes Editors", edition: "Paperback, 2011", price: "$6.50"},
  {id: "dispossessed", title: "The Dispossessed", author: "Ursula K. Le Guin", edition: "Hardcover, 1974", price: "$95.00"},
  {id: "darkness-visible", title: "Darkness Visible", author: "William Styron", edition: "Paperback, 1990", price: "$10.00"},
  {id: "left-hand-path", title: "The Left-Hand Path", author: "J. Doe", edition: "Paperback, 2015", price: "$9.99"},
];
function header() {
  return '<header><a href="index.html">Riverside Books</a><a href="search.html?q=new">New arrivals</a><a href="index.html#about">About</a>' +
    '<form action="search.html" role="search" style="display:inline"><input type="search" name="q" aria-label="Search books" placeholder="Title or author">' +
    '<button type="submit">Search</button></form></header>';
}

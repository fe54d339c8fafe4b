package synth

// The word lists the generator draws names and text from. They are fixed:
// changing any of them changes every generated memory, so a seed names one
// memory only together with this file's version (Version).

var firstNames = []string{
	"Alice", "Bob", "Carol", "David", "Erin", "Frank", "Grace", "Hector", "Ines", "Jonas",
	"Kara", "Liam", "Maya", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Samir", "Tara",
	"Uma", "Victor", "Wen", "Xavier", "Yara", "Zoe", "Aaron", "Bianca", "Caleb", "Dalia",
	"Elias", "Fatima", "Gustav", "Hana", "Ivan", "Julia", "Kenji", "Lena", "Marco", "Nora",
	"Oscar", "Paula", "Rafael", "Sofia", "Tomas", "Ulla", "Vera", "Walter", "Yusuf", "Zara",
	"Amara", "Bruno", "Chloe", "Dmitri", "Elena", "Felix", "Greta", "Hugo", "Iris", "Jamal",
	"Klara", "Leon", "Mira", "Nils", "Olga", "Pedro", "Rania", "Stefan", "Thea", "Ugo",
	"Valeria", "Wilhelm", "Ximena", "Yosef", "Zainab", "Anton", "Beatriz", "Cyrus", "Daphne", "Emil",
	"Freya", "Gideon", "Helga", "Idris", "Jana", "Kofi", "Lucia", "Mateo", "Noor", "Otto",
	"Petra", "Ruben", "Selin", "Tobias", "Una", "Vikram", "Wanda", "Yannick", "Zeynep", "Arjun",
	"Camille", "Diego", "Esther", "Farid", "Giulia", "Henrik", "Ingrid", "Joaquin", "Keiko", "Lars",
	"Mei", "Nikolai", "Ophelia", "Pavel", "Rebecca", "Sanjay", "Tatiana", "Ulrich", "Vanessa", "Wojciech",
}

var lastNames = []string{
	"Smith", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Kowalski", "Fernandes", "Nguyen", "Haddad", "Schmidt",
	"Rossi", "Petrov", "Johansson", "Garcia", "Mbeki", "Novak", "Larsen", "Dubois", "Yilmaz", "Kim",
	"Andersen", "Costa", "Ivanova", "Bauer", "Santos", "Nakamura", "Horvat", "Olsen", "Kaya", "Silva",
	"Weber", "Fischer", "Martin", "Bernard", "Rahman", "Chen", "Wang", "Singh", "Patel", "Mendes",
	"Alvarez", "Brandt", "Castillo", "Dimitrov", "Eriksen", "Fontaine", "Gallo", "Hoffmann", "Iqbal", "Jensen",
	"Keller", "Lopez", "Moretti", "Nilsson", "Ortega", "Popescu", "Quintero", "Ramos", "Sato", "Toth",
	"Umarov", "Varga", "Wagner", "Xu", "Yamamoto", "Zhang", "Abbott", "Becker", "Carvalho", "Delgado",
	"Ekström", "Farkas", "Gruber", "Holm", "Ibrahim", "Jovanovic", "Kuznetsov", "Lehmann", "Marino", "Nowak",
	"Oliveira", "Pereira", "Richter", "Schneider", "Takahashi", "Ueda", "Vogel", "Walsh", "Young", "Zimmermann",
	"Adeyemi", "Bianchi", "Christensen", "Dahl", "Esposito", "Frei", "Gomez", "Hansen", "Ito", "Jaramillo",
	"Kaplan", "Lund", "Mazur", "Nieminen", "Osei", "Park", "Quinn", "Reyes", "Suzuki", "Torres",
}

var places = []string{
	"Lisbon", "Oslo", "Nairobi", "Kyoto", "Porto", "Tallinn", "Montreal", "Valparaiso", "Lyon", "Gdansk",
	"Seville", "Bergen", "Accra", "Osaka", "Krakow", "Ghent", "Leipzig", "Bologna", "Cork", "Aarhus",
	"Brno", "Cusco", "Dakar", "Eindhoven", "Florence", "Graz", "Hanoi", "Izmir", "Jaipur", "Kaunas",
	"Lagos", "Malmo", "Nantes", "Oaxaca", "Perth", "Quito", "Riga", "Salzburg", "Tbilisi", "Utrecht",
	"Vilnius", "Windhoek", "Yokohama", "Zagreb", "Antwerp", "Busan", "Chennai", "Dresden", "Essen", "Fukuoka",
}

var placeQualifiers = []string{"", "North", "South", "East", "West", "Old", "New", "Upper", "Lower", "Port"}

var orgStems = []string{
	"Northwind", "Bluefin", "Ardent", "Copperleaf", "Helix", "Quarry", "Lumen", "Stonebridge", "Vantage", "Kestrel",
	"Meridian", "Foxglove", "Granite", "Harbor", "Ironwood", "Juniper", "Larkspur", "Marigold", "Nimbus", "Orchard",
	"Pinecrest", "Redwood", "Saltmarsh", "Tidewater", "Umber", "Verdant", "Willow", "Zephyr", "Aurora", "Beacon",
}

var orgSuffixes = []string{"Labs", "Systems", "Group", "Partners", "Foods", "Bank", "Studio", "Health", "Logistics", "Robotics", "Energy", "Press"}

var topics = []string{
	"data platform", "machine learning", "payments", "search", "mobile app", "security", "billing", "onboarding",
	"infrastructure", "analytics", "design system", "customer support", "logistics", "pricing", "compliance",
	"sourdough baking", "trail running", "jazz piano", "urban gardening", "birdwatching", "chess openings",
	"climate policy", "film photography", "rock climbing", "vegan cooking", "language learning", "pottery",
	"marathon training", "board games", "astronomy", "woodworking", "sailing", "poetry", "beekeeping",
	"vector databases", "graph theory", "distributed systems", "robotics", "quantum computing", "genomics",
}

var codenames = []string{
	"Falcon", "Orion", "Basalt", "Cobalt", "Juniper", "Kite", "Lantern", "Mosaic", "Nebula", "Obsidian",
	"Pelican", "Quartz", "Raven", "Sequoia", "Tundra", "Umbra", "Vortex", "Wren", "Yarrow", "Zenith",
	"Atlas", "Beacon", "Cedar", "Delta", "Ember", "Fjord", "Glacier", "Harbor", "Iris", "Jasper",
}

var eventKinds = []string{"summit", "offsite", "hackathon", "workshop", "conference", "meetup", "retreat", "festival"}

var roles = []string{"engineer", "designer", "analyst", "manager", "researcher", "consultant", "product lead", "data scientist"}

var connectives = []string{"", "Quick update: ", "By the way, ", "Also, ", "FYI ", "Just so you know, ", "Oh, and ", "Note to self: "}
